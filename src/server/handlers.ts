/**
 * One handler per operation of the contract. Each runs after request validation, so its
 * parameters already have the contract's types; it asks the store and answers one of the
 * operation's declared responses.
 */
import type { ConversationCatalog } from '../catalog/conversation-catalog';
import { trajectoryArchive } from '../catalog/trajectory-archive';
import type { Event, NotFoundError } from '../contract';
import { conversationExport } from '../export/conversation-export';
import { conversationUsage, usageTotal } from '../export/usage/conversation-usage';
import { type CrossSearchCriteria, hyphenate } from '../search';
import type { EventStore } from '../store/event-store';
import { conversationHex, eventFiltersOf, searchCriteriaOf, validatedUuidHex } from './criteria';
import { eventPageBody } from './event-page';
import { type OperationHandlers, SerializedJson, StreamedFile } from './operations';
import { storedEventPageBody } from './stored-event-page';
import { decodeCursor, encodeCursor } from './stored-events-cursor';

export function operationHandlers(store: EventStore, catalog: ConversationCatalog): OperationHandlers {
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
      const items = await Promise.all(
        summaries.map(async (summary) => ({
          id: hyphenate(summary.hex),
          title: summary.title,
          event_count: summary.eventCount,
          last_event_at: summary.lastEventAt,
          usage: conversationUsage(await catalog.get(summary.hex, false)),
        })),
      );
      return { status: 200, body: { items, usage: usageTotal(items.map((item) => item.usage)) } };
    },

    async searchStoredEvents({ query, parsed }) {
      const order = query.sort_order ?? 'TIMESTAMP';
      const criteria: CrossSearchCriteria = { ...eventFiltersOf(query, parsed), sortOrder: order, limit: query.limit ?? 100 };
      // As in the search of one conversation, a page_id that names nothing starts the walk again.
      const cursor = typeof query.page_id === 'string' ? decodeCursor(order, query.page_id) : undefined;
      if (cursor?.ok) criteria.after = cursor.key;
      const page = await store.searchAll(criteria);
      return { status: 200, body: storedEventPageBody(page.hits, page.next && encodeCursor(order, page.next)) };
    },

    async countStoredEvents({ query, parsed }) {
      return { status: 200, body: await store.countAll(eventFiltersOf(query, parsed)) };
    },

    async exportStoredConversation({ query, parsed }) {
      const hex = conversationHex(parsed);
      const events = await store.exportEvents(hex);
      if (!events) return conversationNotFound(hex);
      const title = (await store.listConversations()).find((summary) => summary.hex === hex)?.title ?? null;
      const format = query.format ?? 'jsonl';
      const info = format === 'otlp' || format === 'atif' ? await catalog.get(hex, false) : undefined;
      const file = conversationExport(format, { conversationId: hyphenate(hex), title, info }, events);
      return { status: 200, body: new StreamedFile(file.contentType, file.fileName, file.chunks) };
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
      const items = await Promise.all(query.ids.map(async (id) => (await catalog.get(validatedUuidHex(id), includeSkills)) ?? null));
      return { status: 200, body: items };
    },

    async getConversation({ query, parsed }) {
      const info = await catalog.get(conversationHex(parsed), query.include_skills === true);
      // The reference answers FastAPI's bare 404 here, not the events' "Conversation not found".
      if (!info) return { status: 404, body: { detail: 'Not Found' } };
      return { status: 200, body: info };
    },

    async downloadTrajectory({ parsed }) {
      const hex = conversationHex(parsed);
      const files = await catalog.files(hex);
      if (!files) return { status: 404, body: { detail: 'Conversation not found' } };
      return { status: 200, body: new StreamedFile('application/octet-stream', `${hex}.zip`, trajectoryArchive(hex, files)) };
    },
  };
}

/** The reference's 404 for an unknown conversation names it in the hyphenated form. */
function conversationNotFound(hex: string): { status: 404; body: NotFoundError } {
  return { status: 404, body: { detail: `Conversation not found: ${hyphenate(hex)}` } };
}
