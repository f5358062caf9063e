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

export interface EventStore {
  /**
   * The conversation's index (payload = the event's JSON bytes, trimmed), loading it on
   * first use; undefined when the conversation does not exist. `hex` is the conversation
   * id as 32 lower-case hex digits. Rejects with an Error naming the path when storage
   * cannot be read.
   */
  open(hex: string): Promise<EventIndex<Buffer> | undefined>;
  /**
   * Every stored conversation, the most recent activity first (newest last event first,
   * conversations without events last). Cheap enough to answer on every request: it
   * must not load the conversations' events.
   */
  listConversations(): Promise<StoredConversationSummary[]>;
  health(): StoreHealth;
  /** Stops watchers and timers, so the process can exit. */
  close(): Promise<void>;
}
