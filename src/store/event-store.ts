/**
 * What the server asks of event storage: the contract's operations over one conversation,
 * with every parameter already validated and parsed. A store hands out each event's stored
 * JSON bytes, never a re-serialised object, and the server writes them out as they are.
 */
import type { CrossSearchCriteria, EventFilters, EventKey, SearchCriteria } from '../search';
import type { StoredEventMode } from './stored-event/decide';
import { type StoredEventCounts, emptyStoredEventCounts } from './stored-event/counts';

/**
 * Counters an operator reads on the health endpoint. The names are those /health has
 * always shown; `conversationsDropped` and `decodeWorkerBytes` belonged to the in-memory
 * engine this project no longer has and stay at zero.
 */
export interface StoreHealth {
  /** Conversations the store holds (indexed, or in the database). */
  conversationsLoaded: number;
  /** Events served from those conversations. */
  eventsLoaded: number;
  /** Event files of those conversations that are broken (unreadable, not JSON, or their known fields break the contract). */
  eventsSkipped: number;
  /** What became of those conversations' stored events, newer servers' additions included. */
  storedEvents: StoredEventCounts;
  /** Bytes the SQLite index holds on disk (0 for PostgreSQL, whose database holds them). */
  bytesHeld: number;
  /** The budget `--memory-budget-mb` gave, in bytes; null when none was given (the SQLite index then holds to its default budget) or the store has none (PostgreSQL). */
  memoryBudgetBytes: number | null;
  conversationsDropped: number;
  decodeWorkerBytes: number;
}

/** One stored conversation as the list of conversations shows it, read without loading its events. */
export interface StoredConversationSummary {
  /** The conversation id as 32 lower-case hex digits. */
  hex: string;
  /** The title its metadata records, or null. */
  title: string | null;
  eventCount: number;
  /** The stored timestamp of its last event (the last appended), or null when it has none. */
  lastEventAt: string | null;
}

/** One page of a search: the matching events' stored bytes in order, and the cursor of the next page. */
export interface StoredPage {
  /**
   * The page's events as their stored JSON, in order, in pieces: each piece one event, or
   * several consecutive ones already joined with commas where the store keeps them so.
   */
  itemsJson: Buffer[];
  nextPageId: string | null;
}

/** One match of a search across conversations: its conversation, its place in the order, its stored JSON. */
export interface StoredHit {
  key: EventKey;
  title: string | null;
  json: Buffer;
}

/** One page of a search across conversations, and the key the next page starts at. */
export interface StoredHitPage {
  hits: StoredHit[];
  next: EventKey | null;
}

/** One stored event as the event socket sends it: its own bytes, and where it stands in append order. */
export interface FeedEvent {
  position: number;
  /** Its 0-based place among the conversation's stored events, the number in its file name: the session socket's `seq`. */
  storageIndex: number;
  id: string;
  json: Buffer;
}

/**
 * What the event socket reads: events one by one (a frame each) rather than as page bodies,
 * with their append positions, so that events appended after a point can be found again.
 */
export interface EventFeed {
  /** One page of a search, each event on its own. */
  searchEach(conversationHex: string, criteria: SearchCriteria): Promise<{ events: FeedEvent[]; nextPageId: string | null } | undefined>;
  /** Up to `limit` events at positions after `position`, in append order, and the highest position stored. */
  appendedAfter(conversationHex: string, position: number, limit: number): Promise<{ events: FeedEvent[]; lastPosition: number } | undefined>;
  /** Up to `limit` events at storage indexes after `storageIndex`, in storage order, and the highest storage index (-1: none). */
  storedAfter(conversationHex: string, storageIndex: number, limit: number): Promise<{ events: FeedEvent[]; lastStorageIndex: number } | undefined>;
}

/**
 * The largest event an export is handed whole. A larger one comes as a LargeEvent: what a
 * download holds of it is then bounded whatever its size, as only its pieces are in memory.
 */
export const LARGE_EVENT_BYTES = 1024 * 1024;

/** An event of an export: its stored bytes, or a LargeEvent when they are over LARGE_EVENT_BYTES. */
export type ExportedEvent = Buffer | LargeEvent;

/** An event too large to hand out whole: what it is, and its stored bytes on demand. */
export interface LargeEvent {
  readonly id: string;
  readonly kind: string;
  /** The stored bytes' length. */
  readonly size: number;
  /**
   * The stored bytes in order, in pieces read as they are taken. Fails, rather than ends,
   * when the event is removed or replaced meanwhile, so no piece of another version follows.
   */
  pieces(): AsyncIterable<Buffer>;
}

/**
 * Each operation takes the conversation id as 32 lower-case hex digits and answers
 * `undefined` when the conversation does not exist. It rejects with an Error naming what
 * failed when storage cannot be read.
 */
export interface EventStore {
  search(conversationHex: string, criteria: SearchCriteria): Promise<StoredPage | undefined>;
  /** How many events a search with these filters returns over all its pages. */
  count(conversationHex: string, filters: EventFilters): Promise<number | undefined>;
  /** The stored event with this id; `null` when the conversation serves no such event. */
  getEvent(conversationHex: string, eventId: string): Promise<Buffer | null | undefined>;
  /**
   * Every stored conversation, the most recent activity first (newest last event first,
   * conversations without events last). Cheap enough to answer on every request: it
   * must not load the conversations' events.
   */
  listConversations(): Promise<StoredConversationSummary[]>;
  /** A page of the search across every stored conversation, in the order of src/search/cross-search.ts. */
  searchAll(criteria: CrossSearchCriteria): Promise<StoredHitPage>;
  /** How many events of every stored conversation pass the filters: the sum of the per-conversation counts. */
  countAll(filters: EventFilters): Promise<number>;
  /**
   * Every served event of the conversation in ascending search order, read in batches so
   * that a conversation of any length leaves in bounded memory, and an event larger than
   * LARGE_EVENT_BYTES as a LargeEvent, so that one of any size does too; undefined when the
   * conversation does not exist.
   */
  exportEvents(conversationHex: string): Promise<AsyncIterable<ExportedEvent> | undefined>;
  health(): StoreHealth;
  /** Events one by one for the live socket; a store without it serves no socket. */
  readonly feed?: EventFeed;
  /** Stops watchers and timers, so the process can exit. */
  close(): Promise<void>;
}

/** Health with every counter at zero and no memory budget: where a store starts counting. */
export function emptyStoreHealth(mode: StoredEventMode = 'contract'): StoreHealth {
  return {
    conversationsLoaded: 0,
    eventsLoaded: 0,
    eventsSkipped: 0,
    storedEvents: emptyStoredEventCounts(mode),
    bytesHeld: 0,
    memoryBudgetBytes: null,
    conversationsDropped: 0,
    decodeWorkerBytes: 0,
  };
}
