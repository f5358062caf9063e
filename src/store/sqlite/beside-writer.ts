/**
 * A thread that writes the index file beside the writer, on a connection of its own
 * (index-thread.ts), asked one thing at a time: a step of the trigram index, or the sort that
 * completes a first index. The caller runs each request in the writer's turn
 * (SqliteDatabase.turn), so the ingester's writes wait for it as for one of their own and
 * neither connection waits on SQLite's lock, while requests have the event loop to themselves.
 */
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../worker-thread';
import type { FillerConnection } from './index-file';

/** A trigram step of up to this many rows; the sort that completes a first index; or to close the connection and end. */
export type BesideWriterRequest = number | 'complete' | 'close';
/** Whether a step indexed rows (the sort: done), or the request's error, its SQLite code kept. */
export type BesideWriterAnswer = { done: boolean } | { failed: { message: string; code?: string } };

const INDEX_THREAD = path.join(__dirname, `index-thread${path.extname(__filename)}`);

/** The thread's end before it answered. */
class BesideWriterGone extends Error {}

/**
 * Runs `there` with a thread beside the writer, which it closes after. Should the thread end
 * before it answered (out of memory, say), `here` does the work on the caller's thread,
 * from where the thread left it; the file's own errors are the caller's.
 */
export async function besideWriterOrHere<T>(
  connection: FillerConnection,
  there: (thread: BesideWriter) => Promise<T>,
  here: () => Promise<T>,
): Promise<T> {
  const thread = BesideWriter.start(connection);
  try {
    return await there(thread);
  } catch (error) {
    if (!(error instanceof BesideWriterGone)) throw error;
  } finally {
    await thread.close();
  }
  return here();
}

export class BesideWriter {
  private answered: ((answer: BesideWriterAnswer) => void) | undefined;
  private failed: ((error: Error) => void) | undefined;
  /** Why the thread can answer no more, once it cannot. */
  private gone: BesideWriterGone | undefined;
  private readonly ended: Promise<void>;

  private constructor(private readonly thread: Worker) {
    thread.on('message', (answer: BesideWriterAnswer) => this.answered?.(answer));
    const end = (why: string) => {
      this.gone ??= new BesideWriterGone(`the index thread ended (${why})`);
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

  static start(connection: FillerConnection): BesideWriter {
    return new BesideWriter(startModuleWorker(INDEX_THREAD, connection));
  }

  /** Asks for `request` and resolves with whether it did anything; rejects with its error, or BesideWriterGone. */
  async ask(request: Exclude<BesideWriterRequest, 'close'>): Promise<boolean> {
    const answer = await this.answer(request);
    if ('failed' in answer) throw Object.assign(new Error(answer.failed.message), { code: answer.failed.code });
    return answer.done;
  }

  private answer(request: BesideWriterRequest): Promise<BesideWriterAnswer> {
    if (this.gone) return Promise.reject(this.gone);
    return new Promise((resolve, reject) => {
      this.answered = resolve;
      this.failed = reject;
      this.thread.postMessage(request);
    });
  }

  /** Asks the thread to close its connection and end, and waits until it has. */
  close(): Promise<void> {
    if (!this.gone) this.thread.postMessage('close' satisfies BesideWriterRequest);
    return this.ended;
  }
}
