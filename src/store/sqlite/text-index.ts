/**
 * Fills the trigram index (schema.ts's events_text) behind the stored rows. Indexing an
 * event's text costs several times what storing its row does, so the ingester stores rows
 * only, and the index is filled from them afterwards, a step at a time, in order of row id:
 * a first start serves pages and searches across conversations without waiting for it. The
 * index holds exactly the rows up to events_text_mark (the mark moves in the transaction
 * that indexes them), and `text` checks the rows past it one by one (dialect.ts),
 * so answers are exact whatever the index has caught up with.
 *
 * Many rows waiting (a first index, a long conversation added) are indexed on a thread of
 * its own (text-index-thread.ts), with its own connection to the file: the steps then hold
 * neither the event loop nor a core the requests need, and run back to back. Each step
 * runs in the writer's turn (SqliteDatabase.turn), so the ingester's writes wait for a step
 * as they would for one of their own, never on SQLite's lock. A few rows (an append being
 * followed) are indexed on this thread in short steps, where a thread's start would cost
 * more than the work; so is everything, should the thread fail.
 */
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../worker-thread';
import type { SqlDatabase } from '../sql/database';
import type { FillerConnection } from './index-file';
import type { SqliteDatabase } from './sqlite-database';

/** Indexes up to `rows` rows past the mark, in one transaction; false when none were left. */
export function indexTextStep(database: SqlDatabase, rows: number): Promise<boolean> {
  return database.transaction(async (writer) => {
    const [mark] = await writer.rows<{ through_row_id: number }>({ text: 'SELECT through_row_id FROM events_text_mark', values: [] });
    const from = mark?.through_row_id ?? 0;
    const [step] = await writer.rows<{ last: number | null }>({
      text: 'SELECT max(row_id) AS last FROM (SELECT row_id FROM events WHERE row_id > ?1 ORDER BY row_id LIMIT ?2)',
      values: [from, rows],
    });
    const last = step?.last ?? null;
    if (last === null) return false;
    await writer.run({
      text: `INSERT INTO events_text (rowid, search_text)
        SELECT row_id, search_text FROM events WHERE row_id > ?1 AND row_id <= ?2`,
      values: [from, last],
    });
    await writer.run({ text: 'UPDATE events_text_mark SET through_row_id = ?1', values: [last] });
    return true;
  });
}

/** What the thread is asked: a step of up to this many rows, or to close its connection and end. */
export type FillerRequest = number | 'close';
/** What it answers a step: whether rows were indexed, or the step's error (its SQLite code kept). */
export type FillerAnswer = { indexed: boolean } | { failed: { message: string; code?: string } };

/** From this many rows past the mark, they are indexed on the thread. */
const ROWS_FOR_THREAD = 4096;
/**
 * How long a step on this thread should hold the event loop. After each the filling rests as
 * long as the step took: a request, which takes several turns of the loop, waits for one step
 * at most per turn and has at least half the thread meanwhile. The rows each step takes in
 * follow how long the last took (rows differ in size, and FTS5 merges its segments within
 * some steps).
 */
const STEP_HERE_MS = 8;
/** A step on the thread holds the writer's turn: an append waits for it, so it too stays short. */
const STEP_THERE_MS = 30;
/** Rows per step: from the fewest, which cost more per row (a transaction and a segment each), to the most. */
const ROWS_FEWEST = 16;
const ROWS_MOST = 1024;
const FILLER_THREAD = path.join(__dirname, `text-index-thread${path.extname(__filename)}`);

/**
 * Indexes every row stored when called, and those stored meanwhile, until none is left or
 * `stopped` says so; resolves with the number of steps taken. Rejects with a step's error
 * (a full disk): the caller decides what the index can still do.
 */
export async function fillTextIndex(writer: SqliteDatabase, filler: FillerConnection, stopped: () => boolean): Promise<number> {
  let steps = 0;
  const counted =
    (step: Step): Step =>
    async (rows) => {
      const indexed = await step(rows);
      if (indexed) steps++;
      return indexed;
    };
  if ((await rowsPastMark(writer)) >= ROWS_FOR_THREAD) {
    const thread = FillerThread.start(filler);
    try {
      await fillInSteps(
        STEP_THERE_MS,
        stopped,
        counted(async (rows) => {
          const answer = await writer.turn(() => thread.step(rows));
          if ('failed' in answer) throw Object.assign(new Error(answer.failed.message), { code: answer.failed.code });
          return answer.indexed;
        }),
      );
      return steps;
    } catch (error) {
      // A thread that died (out of memory, say) hands over to this one; the file's own errors are the caller's.
      if (!(error instanceof FillerThreadGone)) throw error;
    } finally {
      await thread.close();
    }
  }
  await fillInSteps(
    STEP_HERE_MS,
    stopped,
    counted((rows) => indexTextStep(writer, rows)),
    { rest: true },
  );
  return steps;
}

/** Indexes up to `rows` rows past the mark; false when none were left. */
type Step = (rows: number) => Promise<boolean>;

/** Steps until none is left or `stopped` says so, the rows of each following how long the last took; with `rest`, resting as long after each. */
async function fillInSteps(stepMs: number, stopped: () => boolean, step: Step, { rest = false } = {}): Promise<void> {
  let rows = ROWS_FEWEST * 4;
  for (;;) {
    if (stopped()) return;
    const started = performance.now();
    if (!(await step(rows))) return;
    const took = performance.now() - started;
    if (took > stepMs) rows = Math.max(ROWS_FEWEST, rows >> 1);
    else if (took < stepMs / 2) rows = Math.min(ROWS_MOST, rows << 1);
    if (rest) await sleep(took);
  }
}

async function rowsPastMark(database: SqlDatabase): Promise<number> {
  const [row] = await database.rows<{ waiting: number | null }>({
    text: 'SELECT (SELECT max(row_id) FROM events) - (SELECT through_row_id FROM events_text_mark) AS waiting',
    values: [],
  });
  return Number(row?.waiting ?? 0);
}

/** The thread's end before it answered: what it had not indexed is indexed on the caller's thread. */
class FillerThreadGone extends Error {}

/** The filling thread, asked one step at a time; each answer comes before the next request. */
class FillerThread {
  private answered: ((answer: FillerAnswer) => void) | undefined;
  private failed: ((error: Error) => void) | undefined;
  /** Why the thread can answer no more, once it cannot. */
  private gone: FillerThreadGone | undefined;
  private readonly ended: Promise<void>;

  private constructor(private readonly thread: Worker) {
    thread.on('message', (answer: FillerAnswer) => this.answered?.(answer));
    const end = (why: string) => {
      this.gone ??= new FillerThreadGone(`the text index thread ended (${why})`);
      this.failed?.(this.gone);
    };
    thread.on('error', (error) => end(error.message));
    this.ended = new Promise((resolve) =>
      thread.on('exit', (code) => {
        end(`exit code ${code}`);
        resolve();
      }),
    );
  }

  static start(filler: FillerConnection): FillerThread {
    return new FillerThread(startModuleWorker(FILLER_THREAD, filler));
  }

  step(rows: number): Promise<FillerAnswer> {
    if (this.gone) return Promise.reject(this.gone);
    return new Promise((resolve, reject) => {
      this.answered = resolve;
      this.failed = reject;
      this.thread.postMessage(rows satisfies FillerRequest);
    });
  }

  /** Asks the thread to close its connection and end, and waits until it has. */
  close(): Promise<void> {
    if (!this.gone) this.thread.postMessage('close' satisfies FillerRequest);
    return this.ended;
  }
}
