/**
 * One handler per operation of the contract. Each runs after request validation, so its
 * parameters already have the contract's types; it asks the store and answers one of the
 * operation's declared responses.
 */
import type { Event, NotFoundError } from '../contract';
import { hyphenate } from '../search';
import type { EventStore } from '../store/event-store';
import { conversationHex, eventFiltersOf, searchCriteriaOf } from './criteria';
import { eventPageBody } from './event-page';
import { type OperationHandlers, SerializedJson } from './operations';

export function operationHandlers(store: EventStore): OperationHandlers {
  return {
    async searchConversationEvents({ query, parsed }) {
      const hex = conversationHex(parsed);
      const page = await store.search(hex, searchCriteriaOf(query, parsed));
      if (!page) return conversationNotFound(hex);
      return { status: 200, body: eventPageBody(page.itemsJson, page.nextPageId) };
    },

    async countConversationEvents({ query, parsed }) {
      const hex = conversationHex(parsed);
      const count = await store.count(hex, eventFiltersOf(query, parsed));
      if (count === undefined) return conversationNotFound(hex);
      return { status: 200, body: count };
    },

    async getConversationEvent({ path, parsed }) {
      const hex = conversationHex(parsed);
      const event = await store.getEvent(hex, path.event_id);
      if (event === undefined) return conversationNotFound(hex);
      if (event === null) return { status: 404, body: { detail: 'Not Found' } };
      return { status: 200, body: new SerializedJson<Event>([event]) };
    },

    async listStoredConversations() {
      const summaries = await store.listConversations();
      const items = summaries.map((summary) => ({
        id: hyphenate(summary.hex),
        title: summary.title,
        event_count: summary.eventCount,
        last_event_at: summary.lastEventAt,
      }));
      return { status: 200, body: { items } };
    },
  };
}

/** The reference's 404 for an unknown conversation names it in the hyphenated form. */
function conversationNotFound(hex: string): { status: 404; body: NotFoundError } {
  return { status: 404, body: { detail: `Conversation not found: ${hyphenate(hex)}` } };
}
