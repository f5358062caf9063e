/**
 * The server's default store: a conversations directory, served from its SQLite index.
 * The ingester (ingest/ingester.ts) keeps the index equal to the directory, watching it
 * and looking again every `pollMs`; before answering for a conversation the store has the
 * ingester look at that one conversation, so an answer reflects what is on disk, and on a
 * first start a conversation is answered as soon as it is read rather than after the
 * whole directory. What spans every conversation (the list, the search across them) waits
 * for the first whole pass of a new index, so a half-built index is never served as
 * complete, and then for a pass whenever the watches saw a change.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../log';
import type { CrossSearchCriteria, EventFilters, SearchCriteria } from '../../search';
import type { EventFeed, EventStore, ExportedEvent, StoredConversationSummary, StoredHitPage, StoredPage, StoreHealth } from '../event-store';
import { afterNextPoll } from '../files/time-slice';
import { createIngester, type DirectoryIngester } from '../ingest/ingester';
import { SqlStore } from '../sql/sql-store';
import type { StoredEventMode } from '../stored-event/decide';
import { besideWriterOrHere } from './beside-writer';
import { KeptFirstPages } from './kept-first-pages';
import { IndexFileError, completeIndex, defaultIndexPath, openIndexFile, type OpenedIndex, pruneIndexesOfGoneDirectories } from './index-file';
import { type SqliteDatabase, sqliteDatabase } from './sqlite-database';
import { fillTextIndex } from './text-index';

export interface IndexedDirectoryOptions {
  logger: Logger;
  /** The index file (index-file.ts's defaultIndexPath of the root's real path, when the CLI is not told another). */
  indexPath: string;
  storedEvents?: StoredEventMode;
  /** Bounds the index's page cache (`--memory-budget-mb`). */
  memoryBudgetBytes?: number;
  /** How often the whole directory is looked at besides what the watches report. */
  pollMs?: number;
  /** Called when the index can no longer be written (a disk full, the file removed): the server cannot stay current. */
  onFatal?: (error: Error) => void;
}

const DEFAULT_POLL_MS = 1000;
/**
 * The share of `--memory-budget-mb` given to the index's page cache. The budget bounds what
 * the process holds beyond its idle size, and the cache is not all of that: a first index
 * holds the batches it decodes and writes, and V8's heap grows with them, about as much as
 * a small budget again, whatever the cache's size.
 */
const BUDGET_SHARE_OF_CACHE = 1 / 4;
/**
 * The share of `--memory-budget-mb` given to kept first pages (kept-first-pages.ts): room for
 * the first pages of the few conversations open in viewers at once, beside the cache's
 * quarter and what a first index holds.
 */
const BUDGET_SHARE_OF_KEPT_PAGES = 1 / 16;
/**
 * The budget when `--memory-budget-mb` is not given: about what the heaviest use the bench
 * makes of a restarted server holds beyond the idle process, every conversation's first page
 * in turn while the restart's pass runs (bench/README.md).
 */
const DEFAULT_MEMORY_BUDGET_BYTES = 192 * 1024 * 1024;

function memoryBudgetBytes(options: IndexedDirectoryOptions): number {
  return options.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET_BYTES;
}

/** Opens the index of `realRoot` and starts following the directory. Throws IndexFileError when the index file cannot be used. */
export function openIndexedDirectory(realRoot: string, options: IndexedDirectoryOptions): IndexedDirectoryStore {
  const mode = options.storedEvents ?? 'contract';
  const cacheBytes = memoryBudgetBytes(options) * BUDGET_SHARE_OF_CACHE;
  const index = openIndexFile(options.indexPath, { realRoot, storedEvents: mode, cacheBytes, logger: options.logger });
  return new IndexedDirectoryStore(realRoot, index, options);
}

export class IndexedDirectoryStore implements EventStore {
  private readonly sql: SqlStore;
  private readonly writer: SqliteDatabase;
  private readonly ingester: DirectoryIngester;
  private readonly keptFirstPages: KeptFirstPages;
  /** The trigram index being filled behind the rows (text-index.ts), while it is. */
  private indexingText: Promise<void> | undefined;
  private textIndexCaughtUp = false;
  /** The pass under way, or the next one queued behind it. */
  private passing: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private firstPass: Promise<void>;
  private firstPassDone = false;
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** The ingester's count of writes when /health's counters were last read. */
  private countedWrites = -1;
  /** Requests waiting for their conversation to be read (current), and who waits for there to be none. */
  private refreshing = 0;
  private readonly refreshesDone: (() => void)[] = [];

  constructor(
    root: string,
    private readonly index: OpenedIndex,
    private readonly options: IndexedDirectoryOptions,
  ) {
    const mode = options.storedEvents ?? 'contract';
    this.sql = new SqlStore(sqliteDatabase(index.reader), { logger: options.logger, storedEvents: mode });
    this.writer = sqliteDatabase(index.writer);
    this.ingester = createIngester({ root, database: this.writer, logger: options.logger, storedEvents: mode, follow: true });
    this.keptFirstPages = new KeptFirstPages(memoryBudgetBytes(options) * BUDGET_SHARE_OF_KEPT_PAGES);
    this.firstPass = this.firstWholePass();
    this.timer = setInterval(() => {
      if (this.ingester.mayHaveChanged()) void this.pass().catch(() => undefined);
    }, options.pollMs ?? DEFAULT_POLL_MS);
    this.timer.unref();
  }

  /** The pass after which the index is whole; marks it so in the file. */
  private firstWholePass(): Promise<void> {
    const started = performance.now();
    const passing = this.pass().then(async () => {
      // Once closing, the sort is left to the next start, rather than holding the stop for seconds.
      if (this.closed) return;
      if (!this.index.completeAtOpen) {
        await this.sortInDeferredIndexes();
        this.options.logger.info('conversations index built', { file: this.options.indexPath, ms: Math.round(performance.now() - started) });
      }
      this.firstPassDone = true;
    });
    passing.catch(() => undefined);
    return passing;
  }

  /**
   * Sorts in the indexes the index was built without (index-file.ts's completeIndex), in the
   * writer's turn, as the trigram index's filling, begun by the pass, also writes. The sort
   * takes seconds on a large archive, so it runs on a thread beside the writer, and requests
   * are answered meanwhile; should the thread end, on this one, after the requests that came
   * during the first pass.
   */
  private async sortInDeferredIndexes(): Promise<void> {
    await besideWriterOrHere(
      this.index.filler,
      async (thread) => {
        await this.writer.turn(() => thread.ask('complete'));
      },
      async () => {
        await this.noRequestWaiting();
        await this.writer.turn(async () => completeIndex(this.index.writer));
      },
    );
  }

  /** A pass of the whole directory; a caller arriving while one runs waits for the next, which starts after it. */
  private pass(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.passing) return this.startPass();
    this.queued = this.passing
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.startPass();
      });
    return this.queued;
  }

  private startPass(): Promise<void> {
    const passing = (async () => {
      try {
        await this.ingester.pass();
        await this.countAgain();
        this.indexText();
      } catch (error) {
        this.fail(error);
        throw error;
      }
    })().finally(() => {
      if (this.passing === passing) this.passing = undefined;
    });
    this.passing = passing;
    return passing;
  }

  /** Fills the trigram index up to the rows stored (text-index.ts), unless that is under way. */
  private indexText(): void {
    if (this.indexingText || this.closed) return;
    this.indexingText = (async () => {
      const began = performance.now();
      const steps = await fillTextIndex(this.writer, this.index.filler, () => this.closed);
      if (this.closed) return;
      // Once, when the first filling since the start has caught up (at once, after a start that found it whole): from then on `body` and `text` answer from the index alone.
      if (!this.textIndexCaughtUp)
        this.options.logger.info('text index built', { file: this.options.indexPath, ms: Math.round(performance.now() - began), steps });
      this.textIndexCaughtUp = true;
    })()
      .catch((error: unknown) => this.fail(error))
      .finally(() => {
        this.indexingText = undefined;
      });
  }

  private fail(error: unknown): void {
    if (this.closed) return;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) {
      this.options.onFatal?.(
        new IndexFileError(
          `Cannot write the index file ${this.options.indexPath} (${code}: ${(error as Error).message}). Free space there, or pass --index-path FILE to keep the index elsewhere.`,
        ),
      );
      return;
    }
    this.options.logger.warn('cannot read the conversations directory', { error: (error as Error).message });
  }

  /** Brings one conversation up to date before it is answered for. */
  private async current(hex: string): Promise<void> {
    this.refreshing += 1;
    try {
      try {
        await this.ingester.refresh(hex);
      } catch (error) {
        this.fail(error);
        throw error;
      }
      await this.countAgain();
    } finally {
      this.refreshing -= 1;
      if (this.refreshing === 0) for (const resolve of this.refreshesDone.splice(0)) resolve();
    }
  }

  /**
   * Resolves once no request is waiting for its conversation to be read, and the answers of
   * those that were have been written (they are computed without waiting on I/O once their
   * conversation is current, so a turn of the event loop after it sees them out).
   */
  private async noRequestWaiting(): Promise<void> {
    while (this.refreshing > 0) await new Promise<void>((resolve) => this.refreshesDone.push(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** /health's counters follow the index: read again whenever the ingester wrote. */
  private async countAgain(): Promise<void> {
    const writes = this.ingester.writes();
    if (writes === this.countedWrites) return;
    this.countedWrites = writes;
    await this.sql.refreshHealth();
  }

  /** Brings the whole index up to date before an answer that spans it. */
  private async whole(): Promise<void> {
    // A complete index from an earlier run answers at once while this run's first pass
    // compares it with the directory; a new one answers only once it is whole.
    if (!this.firstPassDone) {
      if (this.index.completeAtOpen) return;
      const attempt = this.firstPass;
      // A first pass that failed (the directory unreadable for a while) is tried again by the next answer that needs it, not held against every later one.
      await attempt.catch(() => {
        if (this.firstPass === attempt) this.firstPass = this.firstWholePass();
        return this.firstPass;
      });
    }
    // Lets the watches deliver what the kernel has queued, so a change made before this request is seen.
    await afterNextPoll();
    if (this.ingester.mayHaveChanged()) await this.pass();
    await this.countAgain();
  }

  async search(hex: string, criteria: SearchCriteria): Promise<StoredPage | undefined> {
    await this.current(hex);
    // Read before the page: a write committed while the page is read makes the page kept under an older number, never a newer one.
    const writes = this.ingester.writesTo(hex);
    const kept = this.keptFirstPages.find(hex, criteria, writes);
    if (kept) return kept;
    const page = await this.sql.search(hex, criteria);
    return page && this.keptFirstPages.keep(hex, criteria, writes, page);
  }

  async count(hex: string, filters: EventFilters): Promise<number | undefined> {
    await this.current(hex);
    return this.sql.count(hex, filters);
  }

  async getEvent(hex: string, eventId: string): Promise<Buffer | null | undefined> {
    await this.current(hex);
    return this.sql.getEvent(hex, eventId);
  }

  async listConversations(): Promise<StoredConversationSummary[]> {
    await this.whole();
    return this.sql.listConversations();
  }

  async searchAll(criteria: CrossSearchCriteria): Promise<StoredHitPage> {
    await this.whole();
    return this.sql.searchAll(criteria);
  }

  async countAll(filters: EventFilters): Promise<number> {
    await this.whole();
    return this.sql.countAll(filters);
  }

  async exportEvents(hex: string): Promise<AsyncIterable<ExportedEvent> | undefined> {
    await this.current(hex);
    return this.sql.exportEvents(hex);
  }

  readonly feed: EventFeed = {
    searchEach: async (hex, criteria) => {
      await this.current(hex);
      return this.sql.feed.searchEach(hex, criteria);
    },
    appendedAfter: async (hex, position, limit) => {
      await this.current(hex);
      return this.sql.feed.appendedAfter(hex, position, limit);
    },
    storedAfter: async (hex, storageIndex, limit) => {
      await this.current(hex);
      return this.sql.feed.storedAfter(hex, storageIndex, limit);
    },
  };

  /** The database's counters, the index's size as the bytes it holds, and the budget that bounds its cache. */
  health(): StoreHealth {
    const pages = Number(this.index.reader.pragma('page_count', { simple: true }));
    const pageSize = Number(this.index.reader.pragma('page_size', { simple: true }));
    return { ...this.sql.health(), bytesHeld: pages * pageSize, memoryBudgetBytes: this.options.memoryBudgetBytes ?? null };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.ingester.close();
    await this.passing?.catch(() => undefined);
    await this.queued?.catch(() => undefined);
    // The sort that completes a first index runs on a connection of its own: it ends before the file is let go.
    await this.firstPass.catch(() => undefined);
    await this.indexingText;
    await this.sql.close();
    this.index.close();
  }
}

/**
 * The store of a conversations directory as `npm start` opens it: the directory's real
 * path, and its index at `indexPath` or in the user's cache folder (defaultIndexPath),
 * where the indexes of directories that are gone are then removed.
 */
export function openDirectoryStore(
  root: string,
  options: Omit<IndexedDirectoryOptions, 'indexPath'> & { indexPath?: string },
): IndexedDirectoryStore {
  const realRoot = realpathSync(root);
  if (options.indexPath !== undefined) return openIndexedDirectory(realRoot, { ...options, indexPath: options.indexPath });
  const indexPath = defaultIndexPath(realRoot);
  const store = openIndexedDirectory(realRoot, { ...options, indexPath });
  pruneIndexesOfGoneDirectories(path.dirname(indexPath), indexPath, options.logger);
  return store;
}
