/**
 * Reads event files in batches without holding up other requests. While the page cache
 * answers (a few microseconds a file) files are read on the main thread, in time slices:
 * a third of the CPU of thread-pool reads, and no queue in front of other requests' file
 * operations. Once a batch shows that a disk or a network file system is answering, the
 * rest goes through the thread pool: its four threads wait on the device in parallel, and
 * the event loop does not wait at all.
 */
import { readEventFile, readEventFileNow, type FileRead } from './event-file-reader';
import type { PayloadSlab } from './payload-slab';
import { TimeSlice, mapWithConcurrency } from './time-slice';

/**
 * A batch whose median read takes longer than this came from a device: the page cache
 * answers in 5-10 us, a solid-state disk in 100 us or more. The median, because on a busy
 * machine a few reads are preempted or meet a garbage collection.
 */
const DEVICE_READ_MS = 0.05;
/** Fewer reads than this say too little to judge by (a single changed file, say). */
const MIN_READS_TO_JUDGE = 32;
/** Thread-pool reads in flight: libuv has four threads; a few more keep them busy without a long queue in front of other requests. */
const READS_IN_FLIGHT = 8;

export class EventFileBatches {
  private deviceSpeed = false;

  constructor(
    private readonly realRoot: string,
    private readonly slice: TimeSlice,
    private readonly slab: PayloadSlab,
  ) {}

  /** True once reads came from a device rather than the page cache. */
  get onThreadPool(): boolean {
    return this.deviceSpeed;
  }

  /** The files' contents, in the order of `paths`. */
  async read(paths: readonly string[]): Promise<FileRead[]> {
    if (this.deviceSpeed) return mapWithConcurrency(paths, READS_IN_FLIGHT, (filePath) => readEventFile(filePath, this.realRoot, this.slab));
    const reads: FileRead[] = [];
    const durations = new Float64Array(paths.length);
    for (const filePath of paths) {
      const started = performance.now();
      reads.push(readEventFileNow(filePath, this.slab) ?? (await readEventFile(filePath, this.realRoot, this.slab)));
      durations[reads.length - 1] = performance.now() - started;
      if (this.slice.isOver()) await this.slice.yield();
    }
    if (paths.length >= MIN_READS_TO_JUDGE) this.deviceSpeed = median(durations) > DEVICE_READ_MS;
    return reads;
  }
}

function median(values: Float64Array): number {
  return values.length === 0 ? 0 : values.sort()[values.length >> 1]!;
}
