/**
 * Where a load's batches are decoded. On the main thread, in time slices, for small loads
 * and single changed files: no message passing, and nothing to start. For large loads, in
 * the decode workers (one fewer than the machine has cores), and on the main thread too
 * while it has nothing else to do: a batch goes to the workers while they have fewer than
 * four queued each, otherwise to the main thread, unless it is serving requests. Measured
 * on 2 cores while 100k events load: the main thread's help cuts the load from 3.4 s to
 * 2.8 s, but doubles the median small request (6 to 11 ms), so it stops helping as soon
 * as requests come. While the workers run anyway (loads keep coming, decode-pool.ts),
 * smaller loads share them too, cut in one batch per thread (`loadSharing`). A batch the
 * workers cannot decode (they failed, or never started) is decoded on the main thread, so
 * a load never depends on the workers.
 */
import type { DecodePool } from './decode-pool';
import { EventFileBatches, type DecodedFiles } from './event-file-batches';
import type { EventFileName } from './event-file-name';
import type { PayloadSlab } from './payload-slab';
import type { StoredEventMode } from './stored-event';
import type { TimeSlice } from './time-slice';

export interface BatchDecoder {
  /** How many batches may be decoding while the main thread applies one. */
  readonly lookahead: number;
  /** Whether reads turned out to come from a device (event-file-batches.ts). */
  readonly readsOnThreadPool: boolean;
  /** Whether a worker decoded any batch (for the load's log line). */
  readonly usedWorkers: boolean;
  /** What became of each file, in the order of `files`. */
  decode(files: readonly EventFileName[]): Promise<DecodedFiles>;
}

export class MainThreadDecoder implements BatchDecoder {
  readonly lookahead = 0;
  readonly usedWorkers = false;
  private readonly batches: EventFileBatches;

  constructor(
    private readonly directory: string,
    realRoot: string,
    slice: TimeSlice,
    slab: PayloadSlab,
    mode: StoredEventMode,
  ) {
    this.batches = new EventFileBatches(realRoot, slice, slab, mode);
  }

  get readsOnThreadPool(): boolean {
    return this.batches.onThreadPool;
  }

  decode(files: readonly EventFileName[]): Promise<DecodedFiles> {
    return this.batches.decode(this.directory, files);
  }
}

/**
 * Batches queued per worker in a large load. Two drained while the main thread was busy
 * with a batch of its own (a worker sat idle 20% of a 100k load); four keep it busy, at
 * 2 MB of payloads held ahead per worker.
 */
const BATCHES_PER_WORKER = 4;

/**
 * How a load is cut into batches and shared: a large load in batches of `filesPerBatch`,
 * four queued per worker (the main thread takes one when they are full); a smaller one
 * in one batch per worker and one for the main thread, all decoded at once, since the
 * load is waited for and no batch would otherwise run beside the main thread's.
 */
export interface LoadSharing {
  batchSize: number;
  queuedPerWorker: number;
}

export function loadSharing(fileCount: number, workers: number, filesPerBatch: number): LoadSharing {
  if (fileCount >= filesPerBatch * (workers + 1)) return { batchSize: filesPerBatch, queuedPerWorker: BATCHES_PER_WORKER };
  return { batchSize: Math.ceil(fileCount / (workers + 1)), queuedPerWorker: 1 };
}

/** Decodes in the workers while they have room, and on the main thread otherwise (see the top of this file). */
export class SharedDecoder implements BatchDecoder {
  readonly lookahead: number;
  usedWorkers = false;
  private deviceSpeed = false;

  constructor(
    private readonly pool: DecodePool,
    private readonly directory: string,
    private readonly realRoot: string,
    private readonly onMainThread: MainThreadDecoder,
    private readonly mode: StoredEventMode,
    /** Whether the main thread has had no requests to serve lately. */
    private readonly mainThreadIsFree: () => boolean,
    private readonly queuedPerWorker: number,
  ) {
    // The workers' batches, and one for the main thread.
    this.lookahead = queuedPerWorker * pool.workerCount + 1;
  }

  get readsOnThreadPool(): boolean {
    return this.deviceSpeed || this.onMainThread.readsOnThreadPool;
  }

  async decode(files: readonly EventFileName[]): Promise<DecodedFiles> {
    if (this.pool.pendingJobs >= this.queuedPerWorker * this.pool.workerCount && this.mainThreadIsFree()) return this.onMainThread.decode(files);
    try {
      const names = files.map((file) => file.name);
      const decoded = await this.pool.decode({
        directory: this.directory,
        realRoot: this.realRoot,
        names,
        mode: this.mode,
        readsOnThreadPool: this.deviceSpeed,
      });
      this.deviceSpeed ||= decoded.readsOnThreadPool;
      this.usedWorkers = true;
      return decoded.decoded;
    } catch (error) {
      // Closed with the store: the conversation is closed too, and nothing will be applied.
      if (this.pool.isClosed) throw error;
      return this.onMainThread.decode(files);
    }
  }
}
