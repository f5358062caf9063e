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
 * its own (beside-writer.ts), with its own connection to the file: the steps then hold
 * neither the event loop nor a core the requests need, and run back to back. Each step
 * runs in the writer's turn (SqliteDatabase.turn), so the ingester's writes wait for a step
 * as they would for one of their own, never on SQLite's lock. A few rows (an append being
 * followed) are indexed on this thread in short steps, where a thread's start would cost
 * more than the work; so is everything, should the thread fail.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SqlDatabase } from '../sql/database';
import { besideWriterOrHere } from './beside-writer';
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
  const here = async () => {
    await fillInSteps(
      STEP_HERE_MS,
      stopped,
      counted((rows) => indexTextStep(writer, rows)),
      { rest: true },
    );
    return steps;
  };
  if ((await rowsPastMark(writer)) < ROWS_FOR_THREAD) return here();
  return besideWriterOrHere(
    filler,
    async (thread) => {
      await fillInSteps(
        STEP_THERE_MS,
        stopped,
        counted((rows) => writer.turn(() => thread.ask(rows))),
      );
      return steps;
    },
    here,
  );
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
