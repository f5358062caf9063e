import type { StoredConversationList } from '../contract';
import { hyphenate } from '../search';
import type { EventStore } from '../store/event-store';

/** The body of `listStoredConversations`: the store's summaries in the contract's shape. */
export async function storedConversationList(store: EventStore): Promise<StoredConversationList> {
  const summaries = await store.listConversations();
  return {
    items: summaries.map((summary) => ({
      id: hyphenate(summary.hex),
      title: summary.title,
      event_count: summary.eventCount,
      last_event_at: summary.lastEventAt,
    })),
  };
}
