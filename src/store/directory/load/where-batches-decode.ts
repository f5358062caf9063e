/**
 * Where a load's batches are decoded. On the main thread, in time slices, for small loads
 * and single changed files: no message passing, and nothing to start. For large loads, in
 * the decode workers (one fewer than the machine has cores), and on the main thread too
 * while no request is waiting: it takes its share of the batches (`loadSharing`), and
 * leaves them all to the workers as soon as requests come, since its help shortens a load
 * but slows every small request (LOAD_POLICY.mainThreadHelpsAfterQuietMs). While the
 * workers run anyway (loads keep coming, workers/worker-pool.ts), smaller loads share them
 * too, cut in one batch per thread. A batch the workers cannot decode (they failed, or
 * never started) is decoded on the main thread, so a load never depends on the workers.
 */
import { LOAD_POLICY } from './load-policy';
import type { DecodePool } from './workers/worker-pool';
import { EventFileBatches, type DecodedFiles, isUnserved } from './read-and-decode';
import type { EventFileName } from './event-file-name';
import type { ItemsJson } from '../memory/items-json';
import type { PayloadSlab } from '../memory/payload-slabs';
import type { StoredEventMode } from '../../stored-event/decide';
import type { TimeSlice } from './time-slice';

export interface BatchDecoder {
  /** How many batches may be decoding while the main thread applies one. */
  readonly lookahead: number;
  /** Whether reads turned out to come from a device (directory/load/read-and-decode.ts). */
  readonly readsOnThreadPool: boolean;
  /** Whether a worker decoded any batch (for the load's log line). */
  readonly usedWorkers: boolean;
  /** What became of each file, in the order of `files`. */
  decode(files: readonly EventFileName[]): Promise<DecodedFiles<ItemsJson>>;
}

export class MainThreadDecoder implements BatchDecoder {
  readonly lookahead = 0;
  readonly usedWorkers = false;
  private readonly batches: EventFileBatches<ItemsJson>;

  constructor(
    private readonly directory: string,
    realRoot: string,
    slice: TimeSlice,
    private readonly slab: PayloadSlab,
    mode: StoredEventMode,
  ) {
    this.batches = new EventFileBatches(realRoot, slice, slab, mode);
  }

  get readsOnThreadPool(): boolean {
    return this.batches.onThreadPool;
  }

  decode(files: readonly EventFileName[]): Promise<DecodedFiles<ItemsJson>> {
    return this.batches.decode(this.directory, files);
  }

  /** Puts copies of the served payloads, kept where this thread keeps its own, in place of the originals. */
  keepCopies(decoded: DecodedFiles<ItemsJson>): void {
    for (const file of decoded.files) if (!isUnserved(file)) file.payload = this.slab.copy(file.payload, file.payload.length);
  }
}

/**
 * How a load is cut into batches and shared between the workers and the main thread.
 * The main thread also applies every batch to the index, so in a large load it decodes
 * one batch in `2 * workers + 1` and each worker two; a smaller load is cut in one batch
 * per worker and one for the main thread, all decoded at once.
 */
export interface LoadSharing {
  batchSize: number;
  /**
   * Whether the payloads a worker decoded are copied into the conversation's slabs. A
   * large load keeps each batch's buffer as it came; the many smaller loads of a client
   * going from conversation to conversation would otherwise leave buffers of every size
   * for the allocator to reuse, which held more under a memory budget.
   */
  copyPayloads: boolean;
  /** The main thread decodes every `mainThreadEvery`-th batch while it is free. */
  mainThreadEvery: number;
  /** Batches being decoded while the main thread applies one. */
  lookahead: number;
}

export function loadSharing(fileCount: number, workers: number, filesPerBatch: number): LoadSharing {
  if (fileCount >= filesPerBatch * (workers + 1)) {
    return {
      batchSize: filesPerBatch,
      mainThreadEvery: 2 * workers + 1,
      lookahead: LOAD_POLICY.batchesInFlightPerWorker * workers + 1,
      copyPayloads: false,
    };
  }
  return { batchSize: Math.ceil(fileCount / (workers + 1)), mainThreadEvery: workers + 1, lookahead: workers + 1, copyPayloads: true };
}

/** Decodes in the workers, and on the main thread its share of batches while it is free (see the top of this file). */
export class SharedDecoder implements BatchDecoder {
  readonly lookahead: number;
  usedWorkers = false;
  private deviceSpeed = false;
  /** Batches handed to this decoder so far: they come in load order. */
  private batches = 0;

  constructor(
    private readonly pool: DecodePool,
    private readonly directory: string,
    private readonly realRoot: string,
    private readonly onMainThread: MainThreadDecoder,
    private readonly mode: StoredEventMode,
    private readonly sharing: LoadSharing,
  ) {
    this.lookahead = sharing.lookahead;
  }

  get readsOnThreadPool(): boolean {
    return this.deviceSpeed || this.onMainThread.readsOnThreadPool;
  }

  async decode(files: readonly EventFileName[]): Promise<DecodedFiles<ItemsJson>> {
    const mainThreadsTurn = ++this.batches % this.sharing.mainThreadEvery === 0;
    if (mainThreadsTurn && this.pool.mainThreadIsFree) return this.onMainThread.decode(files);
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
      if (this.sharing.copyPayloads) this.onMainThread.keepCopies(decoded.decoded);
      return decoded.decoded;
    } catch (error) {
      // Closed with the store: the conversation is closed too, and nothing will be applied.
      if (this.pool.isClosed) throw error;
      return this.onMainThread.decode(files);
    }
  }
}
