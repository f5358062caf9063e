/**
 * The thread that fills the trigram index (text-index.ts starts it and asks for each step):
 * a connection of its own to the index file, which it closes when told, then ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { connectFiller, type FillerConnection } from './index-file';
import { sqliteDatabase } from './sqlite-database';
import { type FillerAnswer, type FillerRequest, indexTextStep } from './text-index';

if (!parentPort) throw new Error('text-index-thread.ts runs as a worker thread; text-index.ts starts it');
const port = parentPort;
const database = sqliteDatabase(connectFiller(workerData as FillerConnection));

port.on('message', async (request: FillerRequest) => {
  if (request === 'close') {
    await database.close();
    port.close();
    return;
  }
  let answer: FillerAnswer;
  try {
    answer = { indexed: await indexTextStep(database, request) };
  } catch (error) {
    const { message, code } = error as { message?: unknown; code?: unknown };
    answer = { failed: { message: String(message), code: typeof code === 'string' ? code : undefined } };
  }
  port.postMessage(answer);
});
