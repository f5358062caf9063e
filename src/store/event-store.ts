/**
 * What the server asks of event storage: a conversation's search index, loaded on first
 * use and kept current while the process runs. The server serves each event's `payload`
 * bytes verbatim, so a store hands out the stored JSON, never a re-serialised object.
 */
import type { EventIndex } from '../search';

/** Counters an operator reads on the health endpoint. */
export interface StoreHealth {
  /** Conversations currently held in memory. */
  conversationsLoaded: number;
  /** Events served from those conversations. */
  eventsLoaded: number;
  /** Event files of those conversations that are not served (unreadable, not JSON, or not matching the contract). */
  eventsSkipped: number;
  /** Bytes those conversations hold: their events' stored bytes and their search indexes. */
  bytesHeld: number;
  /** The most `bytesHeld` may be before the least recently used conversations are dropped; null: no limit. */
  memoryBudgetBytes: number | null;
  /** Conversations dropped from memory to keep within the budget since the store started (each is read again when asked for). */
  conversationsDropped: number;
}

export interface EventStore {
  /**
   * The conversation's index (payload = the event's JSON bytes, trimmed), loading it on
   * first use; undefined when the conversation does not exist. `hex` is the conversation
   * id as 32 lower-case hex digits. Rejects with an Error naming the path when storage
   * cannot be read.
   */
  open(hex: string): Promise<EventIndex<Buffer> | undefined>;
  health(): StoreHealth;
  /** Stops watchers and timers, so the process can exit. */
  close(): Promise<void>;
}
