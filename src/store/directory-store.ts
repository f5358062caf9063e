/**
 * The EventStore over a conversations directory in the reference layout (REFERENCE.md
 * section 4): `<root>/<32 hex>/events/event-<index>-<id>.json`. Conversations are loaded
 * on first use and then kept current by their watch; see README.md in this folder.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log';
import type { EventIndex } from '../search';
import { ConversationEvents, type ConversationOptions } from './conversation-events';
import { locateConversation, type ConversationLocation } from './conversation-location';
import type { WatchMode } from './directory-watch';
import { errorCode } from './error-code';
import type { EventStore, StoreHealth } from './event-store';

export { StoreRootError, checkConversationsRoot } from './store-root';

export interface DirectoryStoreOptions {
  logger: Logger;
  /**
   * How changes on disk are noticed: `notify` (default) uses inotify with a rescan every
   * 30 s as a safety net; `poll` rescans each loaded conversation every `pollMs` (1000),
   * for network file systems, where inotify does not see other hosts' writes.
   */
  watch?: WatchMode;
  pollMs?: number;
}

/**
 * A store reading `root`. Nothing is read until the first `open`, so creating it never
 * fails; run `checkConversationsRoot` first to report a wrong path before serving.
 */
export function createDirectoryStore(root: string, options: DirectoryStoreOptions): EventStore {
  return new DirectoryStore(path.resolve(root), options.logger, { mode: options.watch, pollMs: options.pollMs });
}

interface Slot {
  /** See directoryIdentity: a directory deleted and created again under the same name is loaded afresh. */
  identity: string;
  conversation: ConversationEvents;
  ready: Promise<void>;
  loaded: boolean;
}

/** How often `open` starts again when the conversation it waited for was dropped meanwhile (deleted or replaced). */
const MAX_OPEN_ATTEMPTS = 3;

class DirectoryStore implements EventStore {
  private readonly slots = new Map<string, Slot>();
  private readonly warnedLinks = new Set<string>();
  private realRoot: string | undefined;
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly logger: Logger,
    private readonly watch: ConversationOptions['watch'],
  ) {}

  async open(hex: string): Promise<EventIndex<Buffer> | undefined> {
    for (let attempt = 1; attempt <= MAX_OPEN_ATTEMPTS; attempt++) {
      if (this.closed) throw new Error('The event store is closed');
      const realRoot = await this.resolveRoot();
      const location = await locateConversation(realRoot, hex);
      if (!location.found) {
        this.notFound(hex, location);
        return undefined;
      }
      const slot = this.slotFor(hex, location, realRoot);
      await slot.ready;
      await slot.conversation.refresh();
      if (!slot.conversation.isClosed) return slot.conversation.index;
    }
    throw new Error(`The conversation directory ${path.join(this.root, hex)} kept changing while it was loaded`);
  }

  health(): StoreHealth {
    const health: StoreHealth = { conversationsLoaded: 0, eventsLoaded: 0, eventsSkipped: 0 };
    for (const slot of this.slots.values()) {
      if (!slot.loaded) continue;
      health.conversationsLoaded += 1;
      health.eventsLoaded += slot.conversation.index.size;
      health.eventsSkipped += slot.conversation.skippedCount;
    }
    return health;
  }

  async close(): Promise<void> {
    this.closed = true;
    const loads = [...this.slots.values()].map((slot) => {
      slot.conversation.close();
      return slot.ready;
    });
    this.slots.clear();
    await Promise.allSettled(loads);
  }

  private async resolveRoot(): Promise<string> {
    if (this.realRoot !== undefined) return this.realRoot;
    try {
      // Links inside the root are judged against its real path (contained-path.ts).
      this.realRoot = await realpath(this.root);
      return this.realRoot;
    } catch (error) {
      throw new Error(`Cannot read the conversations directory ${this.root} (${errorCode(error) ?? String(error)})`, { cause: error });
    }
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
  private slotFor(hex: string, location: ConversationLocation & { found: true }, realRoot: string): Slot {
    const held = this.slots.get(hex);
    if (held && held.identity === location.identity && !held.conversation.isClosed) return held;
    this.drop(hex);
    const conversation = new ConversationEvents({
      hex,
      directory: location.directory,
      realRoot,
      logger: this.logger,
      watch: this.watch,
      onGone: () => {
        if (this.slots.get(hex) === slot) this.drop(hex);
      },
    });
    const slot: Slot = { identity: location.identity, conversation, ready: conversation.load(), loaded: false };
    this.slots.set(hex, slot);
    slot.ready.then(
      () => (slot.loaded = true),
      // A failed load is not kept: the next open tries again.
      () => {
        if (this.slots.get(hex) === slot) this.slots.delete(hex);
      },
    );
    return slot;
  }

  private drop(hex: string): void {
    const slot = this.slots.get(hex);
    if (!slot) return;
    this.slots.delete(hex);
    slot.conversation.close();
    this.logger.info('conversation dropped from memory: its directory was deleted or replaced', { conversation: hex });
  }
}
