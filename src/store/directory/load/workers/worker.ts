/**
 * A decode worker: a thread started by directory/load/workers/worker-pool.ts that reads event files, parses and
 * validates them and computes their index fields (directory/load/read-and-decode.ts, the same code the
 * main thread runs for small loads), then sends each batch back packed (directory/load/workers/batch-transfer.ts).
 * The parsed events live and die in this thread's heap, never in the main thread's.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import type { DecodeJob, DecodeReply } from './worker-messages';
import { EventFileBatches } from '../read-and-decode';
import { parseEventFileName, type EventFileName } from '../event-file-name';
import { WorkerPayloads } from './worker-payloads';
import { packBatch } from './batch-transfer';
import { TimeSlice } from '../time-slice';

if (!parentPort) throw new Error('The decode worker (worker.ts) runs as a worker thread; worker-pool.ts starts it');
const port = parentPort;
/** Payloads wait here between reading and packing. */
const payloads = new WorkerPayloads();
/** Nothing else runs on this thread, so a batch never stops to let other work in. */
const wholeBatch = new TimeSlice(Number.POSITIVE_INFINITY);

/** Jobs run one after another, since they share the payloads area. */
let queue = Promise.resolve();
port.on('message', (job: DecodeJob) => {
  queue = queue.then(() => answer(job));
});

async function answer(job: DecodeJob): Promise<void> {
  try {
    const batches = new EventFileBatches(job.realRoot, wholeBatch, payloads, job.mode, job.readsOnThreadPool);
    payloads.reset();
    const decoded = await batches.decode(job.directory, job.names.map(eventFileName));
    const { batch, transfer } = packBatch(decoded);
    reply({ jobId: job.jobId, batch, readsOnThreadPool: batches.onThreadPool, workerBytes: heapBytes() }, transfer);
  } catch (error) {
    reply({ jobId: job.jobId, error: (error as Error)?.message ?? String(error), workerBytes: heapBytes() });
  }
}

/** This thread's heap and what it allocated outside it. */
function heapBytes(): number {
  const heap = getHeapStatistics();
  return heap.total_heap_size + heap.malloced_memory + heap.external_memory;
}

function reply(message: DecodeReply, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer);
}

function eventFileName(name: string): EventFileName {
  const file = parseEventFileName(name);
  if (!file) throw new Error(`Not an event file name: ${name}`);
  return file;
}
