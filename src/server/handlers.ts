/**
 * One handler per operation of the contract. Each runs after request validation, so its
 * parameters already have the contract's types; it asks the store and answers one of the
 * operation's declared responses.
 */
import type { ConversationCatalog } from '../catalog/conversation-catalog';
import { writeTrajectoryArchive } from '../catalog/trajectory-archive';
import type { Event, NotFoundError } from '../contract';
import { hyphenate } from '../search';
import type { EventStore } from '../store/event-store';
import { conversationHex, eventFiltersOf, searchCriteriaOf } from './criteria';
import { eventPageBody } from './event-page';
import { type OperationHandlers, SerializedJson, StreamedBody } from './operations';

export function operationHandlers(store: EventStore, catalog: ConversationCatalog): OperationHandlers {
  return {
    async searchConversationEvents({ path, query }) {
      const hex = conversationHex(path.conversation_id);
      const page = await store.search(hex, searchCriteriaOf(query));
      if (!page) return conversationNotFound(hex);
      return { status: 200, body: eventPageBody(page.itemsJson, page.nextPageId) };
    },

    async countConversationEvents({ path, query }) {
      const hex = conversationHex(path.conversation_id);
      const count = await store.count(hex, eventFiltersOf(query));
      if (count === undefined) return conversationNotFound(hex);
      return { status: 200, body: count };
    },

    async getConversationEvent({ path }) {
      const hex = conversationHex(path.conversation_id);
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

    async searchConversations({ query }) {
      const page = await catalog.search({
        status: query.status,
        sortOrder: query.sort_order ?? 'CREATED_AT_DESC',
        pageId: typeof query.page_id === 'string' ? query.page_id : undefined,
        limit: query.limit ?? 100,
        includeSkills: query.include_skills === true,
      });
      return { status: 200, body: { items: page.items, next_page_id: page.nextPageId } };
    },

    async countConversations({ query }) {
      return { status: 200, body: await catalog.count(query.status) };
    },

    async getConversationsById({ query }) {
      const includeSkills = query.include_skills === true;
      const items = await Promise.all(query.ids.map(async (id) => (await catalog.get(conversationHex(id), includeSkills)) ?? null));
      return { status: 200, body: items };
    },

    async getConversation({ path, query }) {
      const info = await catalog.get(conversationHex(path.conversation_id), query.include_skills === true);
      // The reference answers FastAPI's bare 404 here, not the events' "Conversation not found".
      if (!info) return { status: 404, body: { detail: 'Not Found' } };
      return { status: 200, body: info };
    },

    async downloadTrajectory({ path }) {
      const hex = conversationHex(path.conversation_id);
      const files = await catalog.files(hex);
      if (!files) return { status: 404, body: { detail: 'Conversation not found' } };
      const headers = { 'Content-Disposition': `attachment; filename="${hex}.zip"` };
      return { status: 200, body: new StreamedBody('application/octet-stream', headers, (out) => writeTrajectoryArchive(hex, files, out)) };
    },
  };
}

/** The reference's 404 for an unknown conversation names it in the hyphenated form. */
function conversationNotFound(hex: string): { status: 404; body: NotFoundError } {
  return { status: 404, body: { detail: `Conversation not found: ${hyphenate(hex)}` } };
}
