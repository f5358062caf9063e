/**
 * The EventStore over a conversations directory in the reference layout (docs/reference-behaviour.md
 * section 4): `<root>/<32 hex>/events/event-<index>-<id>.json`. Conversations are loaded
 * on first use and then kept current by their watch; see README.md in this folder.
 */
import path from 'node:path';
import type { Logger } from '../../log';
import {
  type CrossSearchCriteria,
  type EventFilters,
  type EventIndex,
  type EventKey,
  MergedHits,
  type SearchCriteria,
  countEvents,
  searchEvents,
  walkConversation,
} from '../../search';
import { ConversationEvents, type ConversationOptions } from './conversation-events';
import { locateConversation, realRootOf, type ConversationLocation } from './open/conversation-location';
import { LOAD_POLICY, decodeWorkerCount } from './load/load-policy';
import { DecodePool } from './load/workers/worker-pool';
import type { WatchMode } from './watch/directory-watch';
import { type HeldConversation, HeldConversations } from './memory/held-conversations';
import { ConversationSummaries } from './list/conversation-summaries';
import {
  type EventFeed,
  type EventStore,
  type FeedEvent,
  type StoreHealth,
  type StoredConversationSummary,
  type StoredHit,
  type StoredHitPage,
  type StoredPage,
  emptyStoreHealth,
} from '../event-store';
import { RootWatch } from './watch/root-watch';
import type { StoredEventMode } from '../stored-event/decide';
import { addStoredEventCounts } from '../stored-event/counts';
import { afterNextPoll } from './load/time-slice';

export { StoreRootError, checkConversationsRoot } from './open/store-root';

export interface DirectoryStoreOptions {
  logger: Logger;
  /**
   * How changes on disk are noticed: `notify` (default) uses inotify with a rescan every
   * 30 s as a safety net; `poll` rescans each loaded conversation every `pollMs` (1000),
   * for network file systems, where inotify does not see other hosts' writes.
   */
  watch?: WatchMode;
  pollMs?: number;
  /**
   * Loads of at least this many event files are decoded in worker threads (default:
   * `LOAD_POLICY.decodeInWorkersFrom`); smaller ones, and single changed files, on the main
   * thread. `Infinity` never starts a worker.
   */
  decodeInWorkersFrom?: number;
  /**
   * What is served of stored events that carry properties the contract does not list:
   * `contract` (default) removes them, `as-stored` serves the stored bytes unchanged.
   * Kinds and enum values the contract does not have are never served (stored-event/decide.ts).
   */
  storedEvents?: StoredEventMode;
  /**
   * Most bytes of loaded conversations (their events' bytes and their indexes) to hold;
   * past it, the least recently used are dropped, and read again when next asked for.
   * Undefined: no limit.
   */
  memoryBudgetBytes?: number;
}

/**
 * Longest time a held conversation is served without checking its directory on disk. The
 * root watch reports deletions and replacements at once; this bounds how long one is
 * missed where notifications fail (a network file system, a link into another directory).
 */
const RECHECK_MS = 250;
/**
 * A store reading `root`. Nothing is read until the first `open`, so creating it never
 * fails; run `checkConversationsRoot` first to report a wrong path before serving.
 */
export function createDirectoryStore(root: string, options: DirectoryStoreOptions): DirectoryEventStore {
  return new DirectoryStore(path.resolve(root), options);
}

function feedEvent(index: EventIndex<Buffer>, slot: number): FeedEvent {
  return { position: index.positionAt(slot), id: index.idAt(slot), json: index.payloadAt(slot) };
}

/** Events an export copies out of a conversation at a time. */
const EXPORT_BATCH = 1000;

/** How often `open` starts again when the conversation it waited for was dropped meanwhile (deleted or replaced). */
const MAX_OPEN_ATTEMPTS = 3;

/** The directory store also hands out a conversation's whole index, for tests and tools that inspect what was loaded. */
export interface DirectoryEventStore extends EventStore {
  /** The conversation's index, loading it on first use; undefined when the conversation does not exist. */
  open(hex: string): Promise<EventIndex<Buffer> | undefined>;
}

class DirectoryStore implements DirectoryEventStore {
  /** Conversations held in memory, and the memory budget over them (memory/held-conversations.ts). */
  private readonly conversations: HeldConversations;
  private readonly warnedLinks = new Set<string>();
  private readonly summaries = new ConversationSummaries();
  private readonly logger: Logger;
  private readonly watch: ConversationOptions['watch'];
  private readonly decodePool: DecodePool;
  private readonly decodeInWorkersFrom: number;
  private readonly mode: StoredEventMode;
  private realRoot: string | undefined;
  private rootWatch: RootWatch | undefined;
  private closed = false;

  constructor(
    private readonly root: string,
    options: DirectoryStoreOptions,
  ) {
    this.logger = options.logger;
    this.watch = { mode: options.watch, pollMs: options.pollMs };
    this.decodePool = new DecodePool({ workers: decodeWorkerCount(), logger: options.logger });
    this.decodeInWorkersFrom = options.decodeInWorkersFrom ?? LOAD_POLICY.decodeInWorkersFrom;
    this.mode = options.storedEvents ?? 'contract';
    this.conversations = new HeldConversations(options.memoryBudgetBytes, () => this.decodePool.memoryBytes, options.logger);
  }

  async search(hex: string, criteria: SearchCriteria): Promise<StoredPage | undefined> {
    const index = await this.open(hex);
    if (!index) return undefined;
    const page = searchEvents(index, criteria);
    return { itemsJson: index.payloadsOf(page.slots), nextPageId: page.nextPageId };
  }

  async count(hex: string, filters: EventFilters): Promise<number | undefined> {
    const index = await this.open(hex);
    return index && countEvents(index, filters);
  }

  async getEvent(hex: string, eventId: string): Promise<Buffer | null | undefined> {
    const index = await this.open(hex);
    if (!index) return undefined;
    const slot = index.slotOfId(eventId);
    return slot < 0 ? null : index.payloadAt(slot);
  }

  /**
   * Walks the conversations one at a time, each opened as any request opens it (so the
   * memory budget drops the least recently used as they load), and keeps only the page's
   * hits, copied: what it holds beside the store's own conversations is one page.
   */
  async searchAll(criteria: CrossSearchCriteria): Promise<StoredHitPage> {
    const wanted = { ...criteria, limit: criteria.limit + 1 };
    const merged = new MergedHits<StoredHit>(criteria.sortOrder, wanted.limit);
    for (const summary of await this.listConversations()) {
      const index = await this.open(summary.hex);
      // Deleted since the listing: it has no events to give.
      if (!index) continue;
      for (const { slot, key } of walkConversation(index, summary.hex, wanted, merged.until)) {
        if (merged.wants(key)) merged.add({ key, title: summary.title, json: Buffer.from(index.payloadAt(slot)) });
      }
    }
    return merged.page(criteria.limit);
  }

  async countAll(filters: EventFilters): Promise<number> {
    let total = 0;
    for (const summary of await this.listConversations()) {
      const index = await this.open(summary.hex);
      if (index) total += countEvents(index, filters);
    }
    return total;
  }

  async exportEvents(hex: string): Promise<AsyncIterable<Buffer> | undefined> {
    if (!(await this.open(hex))) return undefined;
    return this.exportBatches(hex);
  }

  /**
   * The conversation in batches, each walked from the key after the last: appends and a
   * budget that drops the conversation between batches neither repeat nor skip an event.
   * A batch's bytes are copied before the first is handed on, because a slot may be
   * reused once the conversation changes.
   */
  private async *exportBatches(hex: string): AsyncGenerator<Buffer> {
    let after: EventKey | undefined;
    for (;;) {
      const index = await this.open(hex);
      if (!index) return;
      const walked = walkConversation(index, hex, { sortOrder: 'TIMESTAMP', limit: EXPORT_BATCH, ...(after ? { after } : {}) });
      const batch = walked.map(({ slot }) => Buffer.from(index.payloadAt(slot)));
      yield* batch;
      if (walked.length < EXPORT_BATCH) return;
      after = walked[walked.length - 1]!.key;
    }
  }
  readonly feed: EventFeed = {
    searchEach: async (hex, criteria) => {
      const index = await this.open(hex);
      if (!index) return undefined;
      const page = searchEvents(index, criteria);
      return { events: page.slots.map((slot) => feedEvent(index, slot)), nextPageId: page.nextPageId };
    },
    appendedAfter: async (hex, position, limit) => {
      const index = await this.open(hex);
      if (!index) return undefined;
      return { events: index.slotsAfterPosition(position, limit).map((slot) => feedEvent(index, slot)), lastPosition: index.lastPosition };
    },
  };

  async open(hex: string): Promise<EventIndex<Buffer> | undefined> {
    for (let attempt = 1; attempt <= MAX_OPEN_ATTEMPTS; attempt++) {
      if (this.closed) throw new Error('The event store is closed');
      const held = (await this.heldAndUnchanged(hex)) ?? (await this.locate(hex));
      if (!held) return undefined;
      this.conversations.markUsed(hex, held);
      // A conversation already loaded answers a request now: large loads leave the main thread to it.
      if (held.loaded) this.decodePool.noteRequestServed();
      await held.ready;
      await held.conversation.refresh();
      if (!held.conversation.isClosed) return held.conversation.index;
    }
    throw new Error(`The conversation directory ${path.join(this.root, hex)} kept changing while it was loaded`);
  }

  async listConversations(): Promise<StoredConversationSummary[]> {
    if (this.closed) throw new Error('The event store is closed');
    return this.summaries.list(await this.resolveRoot());
  }

  health(): StoreHealth {
    const health: StoreHealth = {
      ...emptyStoreHealth(this.mode),
      memoryBudgetBytes: this.conversations.budgetBytes ?? null,
      conversationsDropped: this.conversations.dropped,
      decodeWorkerBytes: this.decodePool.memoryBytes,
    };
    for (const held of this.conversations.values()) {
      if (!held.loaded) continue;
      health.conversationsLoaded += 1;
      health.eventsLoaded += held.conversation.index.size;
      health.eventsSkipped += held.conversation.brokenCount;
      addStoredEventCounts(health.storedEvents, held.conversation.storedEventCounts());
      health.bytesHeld += held.heldBytes;
    }
    return health;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.rootWatch?.close();
    const loads = [...this.conversations.values()].map((held) => {
      held.conversation.close();
      return held.ready;
    });
    this.conversations.clear();
    await this.decodePool.close();
    await Promise.allSettled(loads);
  }

  /**
   * The held conversation, when it was found on disk less than RECHECK_MS ago and the root
   * watch has reported no change since: no file system call. The event loop polls once
   * first, so that notifications the kernel queued before this call are delivered: a
   * directory deleted before the request is never served from memory.
   */
  private async heldAndUnchanged(hex: string): Promise<HeldConversation | undefined> {
    const held = this.conversations.get(hex);
    if (!held || !this.isUnchanged(held)) return undefined;
    if (this.rootWatch?.watching) await afterNextPoll();
    return this.conversations.get(hex) === held && this.isUnchanged(held) ? held : undefined;
  }

  private isUnchanged(held: HeldConversation): boolean {
    return (
      !held.conversation.isClosed && performance.now() - held.checkedAt < RECHECK_MS && held.checkedGeneration === (this.rootWatch?.generation ?? 0)
    );
  }

  /** Looks the conversation up on disk: the held one while its directory is the same, a new one when it was replaced, undefined when gone. */
  private async locate(hex: string): Promise<HeldConversation | undefined> {
    const realRoot = await this.resolveRoot();
    const checkedAt = performance.now();
    const checkedGeneration = this.rootWatch?.generation ?? 0;
    const location = await locateConversation(realRoot, hex);
    if (!location.found) {
      this.notFound(hex, location);
      return undefined;
    }
    const held = this.heldConversationFor(hex, location, realRoot);
    held.checkedAt = checkedAt;
    held.checkedGeneration = checkedGeneration;
    return held;
  }

  private async resolveRoot(): Promise<string> {
    if (this.realRoot !== undefined) return this.realRoot;
    this.realRoot = await realRootOf(this.root);
    if (!this.closed) this.rootWatch ??= new RootWatch(this.realRoot, this.logger, this.watch?.mode !== 'poll');
    return this.realRoot;
  }

  private notFound(hex: string, location: ConversationLocation & { found: false }): void {
    this.drop(hex);
    const link = location.linkOutsideRoot;
    if (link !== undefined && !this.warnedLinks.has(link)) {
      this.warnedLinks.add(link);
      this.logger.warn('conversation directory links outside the conversations directory, not followed', { path: link });
    }
  }

  /** The held conversation, unless its directory was replaced; otherwise a new one, loading. */
  private heldConversationFor(hex: string, location: ConversationLocation & { found: true }, realRoot: string): HeldConversation {
    const current = this.conversations.get(hex);
    if (current && current.identity === location.identity && !current.conversation.isClosed) return current;
    this.drop(hex);
    const conversation = new ConversationEvents({
      hex,
      directory: location.directory,
      realRoot,
      logger: this.logger,
      watch: this.watch,
      decodePool: this.decodePool,
      decodeInWorkersFrom: this.decodeInWorkersFrom,
      shareSmallerLoads: (this.conversations.budgetBytes ?? Number.POSITIVE_INFINITY) >= LOAD_POLICY.smallestBudgetSharingWorkers,
      mode: this.mode,
      onGone: () => {
        if (this.conversations.get(hex) === held) this.drop(hex);
      },
    });
    const held: HeldConversation = {
      identity: location.identity,
      conversation,
      ready: conversation.load(),
      loaded: false,
      checkedAt: 0,
      checkedGeneration: 0,
      heldBytes: 0,
    };
    this.conversations.set(hex, held);
    held.ready.then(
      () => {
        held.loaded = true;
        this.conversations.measure(held);
        if (this.conversations.get(hex) === held) this.conversations.keepWithinBudget(held);
      },
      // A failed load is not kept: the next open tries again.
      () => {
        if (this.conversations.get(hex) === held) this.conversations.delete(hex);
      },
    );
    return held;
  }

  private drop(hex: string): void {
    const held = this.conversations.get(hex);
    if (!held) return;
    this.conversations.delete(hex);
    held.conversation.close();
    this.logger.info('conversation dropped from memory: its directory was deleted or replaced', { conversation: hex });
  }
}
