/**
 * One conversation held in memory: its search index, which file serves which position,
 * which files are not served and why, and the watch that keeps it current. All loading and
 * updating runs on one queue, so the initial load, notified changes and rescans never
 * interleave on the same index.
 */
import type { Stats } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../log';
import { EventIndex } from '../../search';
import { MainThreadDecoder, SharedDecoder, type BatchDecoder, loadSharing } from './load/where-batches-decode';
import { resolveLinkInsideRoot } from './open/contained-path';
import { directoryIdentity } from './open/conversation-location';
import type { DecodePool } from './load/workers/worker-pool';
import { watchDirectory, type DirectoryChanges, type DirectoryWatch, type DirectoryWatchOptions } from './watch/directory-watch';
import { errorCode } from '../error-code';
import { isUnserved, type DecodedFile, type DecodedFiles } from './load/read-and-decode';
import { parseEventFileName, type EventFileName } from './load/event-file-name';
import { eventFilesOf, listDirectory } from './load/event-listing';
import { LOAD_POLICY } from './load/load-policy';
import type { ItemsJson } from './memory/items-json';
import { PayloadSlab } from './memory/payload-slabs';
import { ServedFiles } from './memory/served-files';
import { UnservedFiles, type RememberedUnservedFile } from './memory/unserved-files';
import type { StoredEventMode } from '../stored-event/decide';
import { countUnder, emptyStoredEventCounts, type StoredEventCounts } from '../stored-event/counts';
import { StoredEventReport } from '../stored-event/report';
import { StoredPayloads } from './memory/payload-column';
import { TimeSlice, consumeInOrder } from './load/time-slice';

export interface ConversationOptions {
  hex: string;
  /** The conversation's directory, with any symbolic link already resolved. */
  directory: string;
  realRoot: string;
  logger: Logger;
  /** Called when the watch sees the `events/` directory vanish or be replaced. */
  onGone: () => void;
  watch?: Omit<DirectoryWatchOptions, 'logger'>;
  /** Where large loads are decoded; without it, everything is decoded on the main thread. */
  decodePool?: DecodePool;
  /** Loads of at least this many files go to the decode pool. */
  decodeInWorkersFrom: number;
  /**
   * Whether smaller loads share the decode workers while they run, and start them when
   * they add up (off under a memory budget too small to hold a worker beside conversations).
   */
  shareSmallerLoads: boolean;
  /** What is served of stored events the contract does not fully describe (stored-event/decide.ts). */
  mode: StoredEventMode;
}

export class ConversationEvents {
  readonly index = new EventIndex<ItemsJson>(new StoredPayloads());
  private readonly slab = new PayloadSlab();
  private readonly servedFiles = new ServedFiles();
  /** Files listed but not served, and why (memory/unserved-files.ts). */
  private readonly unserved = new UnservedFiles();
  private readonly report: StoredEventReport;
  private readonly eventsPath: string;
  /** The `events/` directory actually read (a link's target), once it exists. */
  private eventsDirectory: EventsDirectory | undefined;
  private watch: DirectoryWatch | undefined;
  private queue: Promise<void> = Promise.resolve();
  private rescanQueued = false;
  /** The `events/` directory's stamp at the last listing, when a change since would show in it. */
  private trustedStamp: string | undefined;
  private warnedAboutEventsLink = false;
  /** Whether a load found reads slow enough to move them to the thread pool (directory/load/read-and-decode.ts). */
  private slowStorage = false;
  /** Whether decode workers read any batch (directory/load/where-batches-decode.ts). */
  private decodedInWorkers = false;
  private closed = false;

  constructor(private readonly options: ConversationOptions) {
    this.eventsPath = path.join(options.directory, 'events');
    this.report = new StoredEventReport(options.hex, options.mode, options.logger);
  }

  /**
   * Reads every event file, in batches that yield to the event loop, and starts watching
   * for changes. Rejects with an Error naming the path when the directory cannot be read.
   * Resolves early, with the index partly filled, when the conversation is closed meanwhile.
   */
  async load(): Promise<void> {
    const started = performance.now();
    await this.enqueue(() => this.attach());
    if (this.closed) return;
    this.index.trim();
    this.options.logger.info('conversation loaded', {
      conversation: this.options.hex,
      events: this.index.size,
      // The log's field names stay those operators already read: broken files, then files of an unknown kind or value.
      skipped: this.unserved.brokenCount,
      withheld: this.unserved.unknownCount,
      ms: Math.round(performance.now() - started),
      slowStorage: this.slowStorage,
      decodedInWorkers: this.decodedInWorkers,
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Event files not served because they are broken (`/health`'s `eventsSkipped`). */
  get brokenCount(): number {
    return this.unserved.brokenCount;
  }

  /** What became of this conversation's stored events (stored-event/counts.ts). */
  storedEventCounts(): StoredEventCounts {
    const counts = emptyStoredEventCounts(this.options.mode);
    const { nothingUnlisted, bySet } = this.servedFiles.unlistedCounts();
    counts.servedAsStored = nothingUnlisted;
    for (const [set, files] of bySet) {
      counts.servedWithUnlistedProperties += files;
      for (const property of set.split(',')) countUnder(counts.unlistedProperties, property, files);
    }
    this.unserved.countInto(counts);
    return counts;
  }

  /** Picks up an `events/` directory created after the conversation was loaded (one stat while it is missing). */
  async refresh(): Promise<void> {
    if (!this.eventsDirectory && !this.closed) await this.enqueue(() => this.attach());
  }

  close(): void {
    this.closed = true;
    this.watch?.close();
  }

  /** Runs `task` after everything queued before it; its failure rejects the returned promise and does not stop the queue. */
  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** For work nobody awaits: a failure is logged, and the next change or rescan tries again. */
  private enqueueInBackground(task: () => Promise<void>): void {
    this.enqueue(task).catch((error: unknown) => {
      this.options.logger.warn('conversation update failed', { conversation: this.options.hex, error: (error as Error)?.message ?? String(error) });
    });
  }

  /** Finds `events/`, watches it, then reads it whole. The watch starts first, so a file written during the read is not missed. */
  private async attach(): Promise<void> {
    if (this.eventsDirectory || this.closed) return;
    const directory = await this.findEventsDirectory();
    if (!directory) return;
    this.eventsDirectory = directory;
    this.watch = watchDirectory(directory.path, (changes) => this.onChanges(changes), { logger: this.options.logger, ...this.options.watch });
    try {
      // Stamped before listing (from the stat that found the directory): a file added after
      // the stamp shows as a changed stamp.
      const stamp = stampOf(directory.stats);
      if (stamp.directoryBytes >= this.options.decodeInWorkersFrom * LOAD_POLICY.directoryBytesPerName) this.options.decodePool?.warm();
      const names = await listDirectory(directory.path, stamp.directoryBytes / LOAD_POLICY.directoryBytesPerName);
      if (names === undefined) return this.options.onGone();
      this.trustedStamp = stamp.trustworthy ? stamp.value : undefined;
      await this.loadFiles(await eventFilesOf(names, new TimeSlice(LOAD_POLICY.sliceMs)));
    } catch (error) {
      // Unreadable: detach, so the next open tries again from the start.
      this.watch.close();
      this.watch = undefined;
      this.eventsDirectory = undefined;
      throw error;
    }
  }

  /**
   * The `events/` directory, following a link only inside the root; undefined while there
   * is none. One lstat when it is a directory itself (its stats serve as the listing's stamp).
   */
  private async findEventsDirectory(): Promise<EventsDirectory | undefined> {
    const entry = await statOrUndefined(() => lstat(this.eventsPath));
    if (!entry) return undefined;
    if (!entry.isSymbolicLink()) return this.eventsDirectoryAt(this.eventsPath, entry);
    const link = await resolveLinkInsideRoot(this.options.realRoot, this.eventsPath);
    if (!link.ok) {
      if (link.reason === 'outside' && !this.warnedAboutEventsLink) {
        this.warnedAboutEventsLink = true;
        this.options.logger.warn('events directory links outside the conversations directory, not followed', { path: this.eventsPath });
      }
      return undefined;
    }
    const stats = await statOrUndefined(() => stat(link.target));
    return stats && this.eventsDirectoryAt(link.target, stats);
  }

  private eventsDirectoryAt(target: string, stats: Stats): EventsDirectory {
    // Not "no events yet": the conversation's events are gone, and the operator must hear of it.
    if (!stats.isDirectory()) throw new Error(`Cannot read the events of ${this.eventsPath}: it is not a directory`);
    return { path: target, identity: directoryIdentity(stats), stats };
  }

  private onChanges(changes: DirectoryChanges): void {
    if (this.closed) return;
    if (changes === 'all') {
      this.queueRescan();
      return;
    }
    this.enqueueInBackground(() => this.applyChanges(changes));
  }

  private queueRescan(): void {
    if (this.rescanQueued) return;
    this.rescanQueued = true;
    this.enqueueInBackground(() => this.rescan());
  }

  /**
   * Re-reads the named files. Any other name may be the watched directory itself: when it
   * is deleted, inotify reports its own name and the watch ends, so the conversation is
   * dropped unless the directory is still the one watched.
   */
  private async applyChanges(names: ReadonlySet<string>): Promise<void> {
    const files: EventFileName[] = [];
    let otherNames = false;
    for (const name of names) {
      const file = parseEventFileName(name);
      if (file) files.push(file);
      else otherNames = true;
    }
    if (otherNames && !(await this.stillWatchingTheSameDirectory())) return this.options.onGone();
    await this.loadFiles(files.sort((a, b) => a.position - b.position));
  }

  /**
   * Compares the listing with what is held: the safety net when notifications are off or
   * lost. Skipped when the directory's stamp is unchanged since a listing, since adding,
   * removing or renaming a file changes it; broken files are retried all the same, as
   * completing a half-written file does not.
   */
  private async rescan(): Promise<void> {
    this.rescanQueued = false;
    const directory = this.eventsDirectory;
    if (!directory || this.closed) return;
    const stamp = await listingStamp(directory.path);
    if (stamp === undefined) return this.options.onGone();
    if (stamp.value === this.trustedStamp) return this.retryBroken();
    const names = await listDirectory(directory.path, stamp.directoryBytes / LOAD_POLICY.directoryBytesPerName);
    if (names === undefined) return this.options.onGone();
    this.trustedStamp = stamp.trustworthy ? stamp.value : undefined;
    const slice = new TimeSlice(LOAD_POLICY.sliceMs);
    const files = await eventFilesOf(names, slice);
    const toRead: EventFileName[] = [];
    let servedAndListed = 0;
    let unknownAndListed = 0;
    for (const file of files) {
      if (this.servedFiles.isServing(file)) servedAndListed++;
      else if (this.unserved.isUnknown(file.name)) unknownAndListed++;
      else toRead.push(file);
      if (slice.isOver()) await slice.yield();
    }
    if (servedAndListed < this.servedFiles.size) {
      for (const position of this.servedFiles.positionsMissingFrom(files)) this.unservePosition(position);
    }
    this.unserved.forgetAllBut(names, unknownAndListed);
    // New files, and broken ones again: a file caught half-written may be complete by now.
    await this.loadFiles(toRead);
  }

  private async retryBroken(): Promise<void> {
    const broken = this.unserved
      .brokenNames()
      .map(parseEventFileName)
      .filter((file) => file !== undefined);
    await this.loadFiles(broken.sort((a, b) => a.position - b.position));
  }

  private async stillWatchingTheSameDirectory(): Promise<boolean> {
    const current = await this.findEventsDirectory();
    return current !== undefined && current.identity === this.eventsDirectory?.identity;
  }

  /**
   * Reads, decodes and applies files in position order, in batches; the main thread
   * applies each in time slices (directory/load/where-batches-decode.ts says where decoding runs). Position
   * order keeps index inserts at the end (O(1)) for chronological files.
   */
  private async loadFiles(files: readonly EventFileName[]): Promise<void> {
    const directory = this.eventsDirectory?.path;
    if (!directory) return;
    const slice = new TimeSlice(LOAD_POLICY.sliceMs);
    this.index.reserve(this.index.size + files.length);
    const { decoder, batchSize } = this.decoderFor(directory, files.length, slice);
    const batches: EventFileName[][] = [];
    for (let start = 0; start < files.length; start += batchSize) batches.push(files.slice(start, start + batchSize));
    const applyBatch = async (batch: readonly EventFileName[], decoded: DecodedFiles<ItemsJson>) => {
      for (let i = 0; i < batch.length && !this.closed; i++) {
        this.apply(batch[i]!, decoded.files[i]!, decoded.unlisted[i], directory);
        if (slice.isOver()) await slice.yield();
      }
    };
    try {
      await consumeInOrder(
        batches,
        decoder.lookahead,
        (batch) => decoder.decode(batch),
        applyBatch,
        () => this.closed,
      );
    } finally {
      this.report.flush();
    }
    this.slowStorage ||= decoder.readsOnThreadPool;
    this.decodedInWorkers ||= decoder.usedWorkers;
    // LOAD_POLICY.stopWorkersAfterLoadsOf says why a large load stops the idle workers now.
    if (decoder.usedWorkers && files.length >= LOAD_POLICY.stopWorkersAfterLoadsOf) await this.options.decodePool?.stopIfIdle();
  }

  /**
   * The decode workers take a load that is large, or one of a few dozen files or more while
   * they run anyway; the main thread decodes the rest alone.
   */
  private decoderFor(directory: string, fileCount: number, slice: TimeSlice): { decoder: BatchDecoder; batchSize: number } {
    const { mode, realRoot, decodeInWorkersFrom } = this.options;
    const onMainThread = new MainThreadDecoder(directory, realRoot, slice, this.slab, mode);
    const pool = this.options.decodePool;
    const { shareSmallerLoads } = this.options;
    const shared =
      pool?.usable && (fileCount >= decodeInWorkersFrom || (shareSmallerLoads && pool.running > 0 && fileCount >= LOAD_POLICY.sharedLoadFrom));
    if (!shared) {
      if (shareSmallerLoads && Number.isFinite(decodeInWorkersFrom)) pool?.noteMainThreadLoad(fileCount, decodeInWorkersFrom);
      return { decoder: onMainThread, batchSize: LOAD_POLICY.filesPerBatch };
    }
    const sharing = loadSharing(fileCount, pool.workerCount, LOAD_POLICY.filesPerBatch);
    const decoder = new SharedDecoder(pool, directory, realRoot, onMainThread, mode, sharing);
    return { decoder, batchSize: sharing.batchSize };
  }

  private apply(file: EventFileName, decoded: DecodedFile<ItemsJson>, unlisted: string | undefined, directory: string): void {
    if (isUnserved(decoded)) {
      if (decoded.because === 'gone') {
        this.unserve(file);
        this.unserved.forget(file.name);
      } else this.leaveUnserved(file, decoded, directory);
      return;
    }
    if (this.servedFiles.isTakenByAnother(file)) {
      this.leaveUnserved(file, { because: 'broken', reason: 'its index is already served from another event file' }, directory);
      return;
    }
    this.index.upsert(decoded);
    this.servedFiles.serve(file, unlisted);
    if (unlisted !== undefined) this.report.unlisted(unlisted);
    if (this.unserved.forget(file.name)) {
      this.options.logger.info('event file served after being skipped', { conversation: this.options.hex, file: path.join(directory, file.name) });
    }
  }

  /** Stops serving the file and remembers why; the report logs each reason once per conversation. */
  private leaveUnserved(file: EventFileName, unserved: RememberedUnservedFile, directory: string): void {
    this.unserve(file);
    if (this.unserved.remember(file.name, unserved)) this.report.unserved(unserved, path.join(directory, file.name));
  }

  private unserve(file: EventFileName): void {
    if (this.servedFiles.unserve(file)) this.index.remove(file.position);
  }

  private unservePosition(position: number): void {
    this.servedFiles.unservePosition(position);
    this.index.remove(position);
  }
}

/**
 * Modification and change times and inode of a directory: any file added, removed or
 * renamed in it changes them. A stamp less than two seconds old is not trusted, since a
 * change within the same clock tick as the listing would leave it as it was (the race Git
 * calls "racy"); the next rescan lists again.
 */
async function listingStamp(directory: string): Promise<ListingStamp | undefined> {
  const stats = await statOrUndefined(() => stat(directory));
  return stats && stampOf(stats);
}

interface EventsDirectory {
  path: string;
  /** See directoryIdentity: a directory replaced under the same name is told apart. */
  identity: string;
  /** As found, before it was listed. */
  stats: Stats;
}

interface ListingStamp {
  value: string;
  trustworthy: boolean;
  directoryBytes: number;
}

function stampOf(stats: Stats): ListingStamp {
  return {
    value: `${stats.ino}:${stats.mtimeMs}:${stats.ctimeMs}`,
    trustworthy: Date.now() - Math.max(stats.mtimeMs, stats.ctimeMs) > RACY_STAMP_MS,
    directoryBytes: stats.size,
  };
}

const RACY_STAMP_MS = 2000;

/** The stats, or undefined when the path does not exist; other failures reject with the path named. */
async function statOrUndefined<T>(get: () => Promise<T>): Promise<T | undefined> {
  try {
    return await get();
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new Error(`Cannot read ${(error as { path?: string }).path ?? 'a conversation path'} (${code ?? String(error)})`, { cause: error });
  }
}
