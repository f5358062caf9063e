/**
 * What the server asks of event storage: a conversation's search index, loaded on first
 * use and kept current while the process runs. The server serves each event's `payload`
 * bytes verbatim, so a store hands out the stored JSON, never a re-serialised object.
 */
import type { EventIndex } from '../search';
import type { StoredEventCounts } from './stored-event-counts';

/** Counters an operator reads on the health endpoint. */
export interface StoreHealth {
  /** Conversations currently held in memory. */
  conversationsLoaded: number;
  /** Events served from those conversations. */
  eventsLoaded: number;
  /** Event files of those conversations that are broken (unreadable, not JSON, or their known fields break the contract). */
  eventsSkipped: number;
  /** What became of those conversations' stored events, newer servers' additions included. */
  storedEvents: StoredEventCounts;
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
