/** The messages between the main thread (directory/load/workers/worker-pool.ts) and a decode worker (directory/load/workers/worker.ts). */
import type { PackedBatch } from './batch-transfer';
import type { StoredEventMode } from '../../../stored-event/decide';

/** Read and decode these files of `directory`, in this order. */
export interface DecodeJob {
  jobId: number;
  directory: string;
  /** The conversations directory, resolved: symbolic links are followed only inside it. */
  realRoot: string;
  /** Event file names, already checked by parseEventFileName. */
  names: string[];
  /** What is served of events the contract does not fully describe (stored-event/decide.ts). */
  mode: StoredEventMode;
  /** Whether earlier reads of this directory came from a device (directory/load/read-and-decode.ts). */
  readsOnThreadPool: boolean;
}

/** `workerBytes`: what the worker's own heap holds after the job (directory/load/workers/worker-pool.ts charges it to a memory budget). */
export type DecodeReply =
  | { jobId: number; batch: PackedBatch; readsOnThreadPool: boolean; workerBytes: number }
  | { jobId: number; error: string; workerBytes: number };
