/**
 * The thread that writes the index file beside the writer (beside-writer.ts starts it and
 * asks it one thing at a time): a step of the trigram index (text-index.ts), or the sort of
 * the indexes a first index was built without (index-file.ts's completeIndex), on a
 * connection of its own, which it closes when told, then ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { BesideWriterAnswer, BesideWriterRequest } from './beside-writer';
import { completeIndex, connectFiller, type FillerConnection } from './index-file';
import { sqliteDatabase } from './sqlite-database';
import { indexTextStep } from './text-index';

if (!parentPort) throw new Error('index-thread.ts runs as a worker thread; beside-writer.ts starts it');
const port = parentPort;
const connection = connectFiller(workerData as FillerConnection);
const database = sqliteDatabase(connection);

port.on('message', async (request: BesideWriterRequest) => {
  if (request === 'close') {
    await database.close();
    port.close();
    return;
  }
  let answer: BesideWriterAnswer;
  try {
    if (request === 'complete') {
      completeIndex(connection);
      answer = { done: true };
    } else {
      answer = { done: await indexTextStep(database, request) };
    }
  } catch (error) {
    const { message, code } = error as { message?: unknown; code?: unknown };
    answer = { failed: { message: String(message), code: typeof code === 'string' ? code : undefined } };
  }
  port.postMessage(answer);
});
