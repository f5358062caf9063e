/**
 * Reads and decodes event files in batches, on whichever thread runs it: a decode worker
 * (directory/load/workers/worker.ts) for large loads, the main thread for small ones and for updates.
 *
 * While the page cache answers (a few microseconds a file) files are read on the calling
 * thread, in time slices: a fraction of the CPU of thread-pool reads, and no queue in front
 * of other requests' file operations. Once a batch shows that a disk or a network file
 * system is answering, the rest goes through the thread pool: its four threads wait on the
 * device in parallel, and the calling thread does not wait at all.
 */
import path from 'node:path';
import type { IndexedEvent } from '../../../search';
import type { UnservedFile } from '../memory/unserved-files';
import { decodeEventFile } from '../../stored-event/index-fields';
import type { EventFileName } from './event-file-name';
import { LOAD_POLICY } from './load-policy';
import { SCRATCH_BYTES, readEventFile, readEventFileNow, type FileRead } from './event-file-reader';
import type { PayloadKeeper } from '../memory/payload-slabs';
import type { StoredEventMode } from '../../stored-event/decide';
import { type TimeSlice, mapWithConcurrency } from './time-slice';

/**
 * What became of one event file: its index entry, payload kept, or why it is not
 * served. An entry is the object the index will hold, so the main thread allocates
 * nothing per event that it then throws away.
 */
export type DecodedFile<Payload extends Buffer = Buffer> = IndexedEvent<Payload> | UnservedFile;

export function isUnserved<Payload extends Buffer>(file: DecodedFile<Payload>): file is UnservedFile {
  return 'because' in file;
}

/**
 * A batch's files, and beside them, per file, the properties the contract does not list
 * (joined with commas; undefined when none or not served): a column rather than a field of
 * each entry, since the index keeps the entries.
 */
export interface DecodedFiles<Payload extends Buffer = Buffer> {
  files: DecodedFile<Payload>[];
  unlisted: (string | undefined)[];
}

/** `Payload`: what the keeper makes of a served event's bytes (laid out for pages on the main thread, scratch in a worker). */
export class EventFileBatches<Payload extends Buffer = Buffer> {
  constructor(
    private readonly realRoot: string,
    private readonly slice: TimeSlice,
    /** Where served payloads are copied to; nothing else is kept. */
    private readonly keeper: PayloadKeeper<Payload>,
    private readonly mode: StoredEventMode,
    private deviceSpeed = false,
  ) {}

  /** True once reads came from a device rather than the page cache. */
  get onThreadPool(): boolean {
    return this.deviceSpeed;
  }

  /** What became of each file of `directory`, in the order of `files`. */
  async decode(directory: string, files: readonly EventFileName[]): Promise<DecodedFiles<Payload>> {
    const unlisted = new Array<string | undefined>(files.length);
    if (this.deviceSpeed) {
      let at = 0;
      const decoded = await mapWithConcurrency(files, LOAD_POLICY.threadPoolReadsInFlight, (file) => {
        const index = at++;
        return withScratch(async (scratch) =>
          this.decoded(await readEventFile(path.join(directory, file.name), this.realRoot, scratch), file, unlisted, index),
        );
      });
      return { files: decoded, unlisted };
    }
    const results: DecodedFile<Payload>[] = [];
    // Only the reads are timed: decoding costs more than a page-cache read, and on a slow
    // CPU it alone would pass for a device.
    const readDurations = new Float64Array(files.length);
    for (const file of files) {
      const filePath = path.join(directory, file.name);
      const started = performance.now();
      const read = readEventFileNow(filePath, nowScratch);
      readDurations[results.length] = performance.now() - started;
      // undefined: a symbolic link, read through the thread pool, which checks where it leads.
      results.push(
        read
          ? this.decoded(read, file, unlisted, results.length)
          : await withScratch(async (scratch) => this.decoded(await readEventFile(filePath, this.realRoot, scratch), file, unlisted, results.length)),
      );
      if (this.slice.isOver()) await this.slice.yield();
    }
    if (files.length >= LOAD_POLICY.minReadsToJudge) this.deviceSpeed = median(readDurations) > LOAD_POLICY.deviceReadMs;
    return { files: results, unlisted };
  }

  /** Decodes the bytes while they are still in the scratch buffer, and copies them only when they are served. */
  private decoded(read: FileRead, file: EventFileName, unlisted: (string | undefined)[], index: number): DecodedFile<Payload> {
    if (read.kind === 'gone') return GONE;
    if (read.kind === 'unreadable') return { because: 'broken', reason: read.reason };
    const decoded = decodeEventFile(read.bytes, file, this.mode);
    if (!decoded.ok) return { because: decoded.because, reason: decoded.reason };
    const bytes = decoded.event.payload;
    // The entry is kept, its payload replaced by the keeper's copy: no second object per event.
    const event = decoded.event as IndexedEvent<Buffer | Payload>;
    event.payload = this.keeper.copy(bytes, bytes.length);
    unlisted[index] = decoded.unlisted;
    return event as IndexedEvent<Payload>;
  }
}

const GONE: UnservedFile = { because: 'gone' };

/** For reads on the calling thread, each decoded before the next read starts. */
const nowScratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);

/** Scratch buffers of finished thread-pool reads, reused: each read in flight needs its own. */
const idleScratch: Buffer[] = [];
const MAX_IDLE_SCRATCH = 16;

async function withScratch<T>(task: (scratch: Buffer) => Promise<T>): Promise<T> {
  const scratch = idleScratch.pop() ?? Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  try {
    return await task(scratch);
  } finally {
    if (idleScratch.length < MAX_IDLE_SCRATCH) idleScratch.push(scratch);
  }
}

function median(values: Float64Array): number {
  return values.length === 0 ? 0 : values.sort()[values.length >> 1]!;
}
