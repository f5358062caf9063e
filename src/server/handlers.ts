/**
 * One handler per operation of the contract. Each runs after request validation, so its
 * parameters already have the contract's types; it asks the store and answers one of the
 * operation's declared responses. Whatever holds a conversation's stored bytes passes them
 * through the secret policy here, with the conversation's known secrets (src/secrets).
 */
import type { ConversationCatalog } from '../catalog/conversation-catalog';
import { trajectoryArchive } from '../catalog/trajectory-archive';
import type { Event, HTTPValidationError, NotFoundError } from '../contract';
import { conversationExport } from '../export/conversation-export';
import { conversationUsage, usageTotal } from '../export/usage/conversation-usage';
import { jsonText } from '../json/json-text';
import { type CrossSearchCriteria, hyphenate } from '../search';
import { maskedJson, recentKnownSecrets } from '../secrets';
import type { EventStore } from '../store/event-store';
import { conversationHex, eventFiltersOf, searchCriteriaOf, validatedUuidHex } from './criteria';
import { agentFinalResponse } from './agent-final-response';
import { eventPageBody } from './event-page';
import { maskedPageItems } from './masked-page-items';
import { queryDefault } from './query-defaults';
import { type OperationHandlers, SerializedJson, StreamedFile } from './operations';
import { storedEventPageBody } from './stored-event-page';
import { decodeCursor, encodeCursor } from './stored-events-cursor';

export function operationHandlers(store: EventStore, catalog: ConversationCatalog): OperationHandlers {
  const knownSecrets = recentKnownSecrets((hex) => catalog.knownSecrets(hex));
  // Asked once a download has been read to its end: cheap for a store that holds the conversation.
  const stillStored = async (hex: string) => (await store.count(hex, {})) !== undefined;
  return {
    async searchConversationEvents({ query, parsed }) {
      const hex = conversationHex(parsed);
      const [page, known] = await Promise.all([store.search(hex, searchCriteriaOf(query, parsed)), knownSecrets(hex)]);
      if (!page) return conversationNotFound(hex);
      return {
        status: 200,
        body: eventPageBody(maskedPageItems(page, known), page.nextPageId),
      };
    },

    async countConversationEvents({ query, parsed }) {
      const hex = conversationHex(parsed);
      const count = await store.count(hex, eventFiltersOf(query, parsed));
      if (count === undefined) return conversationNotFound(hex);
      return { status: 200, body: count };
    },

    async getConversationEvent({ path, parsed }) {
      const hex = conversationHex(parsed);
      const [event, known] = await Promise.all([store.getEvent(hex, path.event_id), knownSecrets(hex)]);
      if (event === undefined) return conversationNotFound(hex);
      if (event === null) return { status: 404, body: { detail: 'Not Found' } };
      return { status: 200, body: new SerializedJson<Event>([maskedJson(event, known)]) };
    },

    async getConversationEventsByIds({ body, parsed }) {
      const hex = conversationHex(parsed);
      // As in the reference, the conversation is looked up before the body is judged.
      if ((await store.getEvent(hex, '')) === undefined) return conversationNotFound(hex);
      // Written without recursion: an item that is not a string is echoed as sent, and may be nested thousands deep.
      if (!body.ok) return { status: 422, body: new SerializedJson<HTTPValidationError>([Buffer.from(jsonText({ detail: body.problems }))]) };
      const known = await knownSecrets(hex);
      const events: (Buffer | null)[] = [];
      for (const id of body.value) {
        const event = await store.getEvent(hex, id);
        if (event === undefined) return conversationNotFound(hex);
        events.push(event === null ? null : maskedJson(event, known));
      }
      const parts = events.flatMap((event, index) => [index === 0 ? OPEN : COMMA, event ?? NULL]);
      return { status: 200, body: new SerializedJson<(Event | null)[]>([...(parts.length > 0 ? parts : [OPEN]), CLOSE]) };
    },

    async getAgentFinalResponse({ parsed }) {
      const hex = conversationHex(parsed);
      const response = await agentFinalResponse(store, hex);
      // The reference answers FastAPI's bare 404 here, not the events' "Conversation not found".
      if (response === undefined) return { status: 404, body: { detail: 'Not Found' } };
      // The text comes from stored events, so the conversation's known secrets are masked in it as in the events themselves.
      return { status: 200, body: { response: (await knownSecrets(hex)).maskIn(response) } };
    },

    async getReadiness() {
      return { status: 200, body: { status: 'ready' } };
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
      const order = query.sort_order ?? queryDefault('searchStoredEvents', 'sort_order');
      const criteria: CrossSearchCriteria = {
        ...eventFiltersOf(query, parsed),
        sortOrder: order,
        limit: query.limit ?? queryDefault('searchStoredEvents', 'limit'),
      };
      // As in the search of one conversation, a page_id that names nothing starts the walk again.
      const cursor = typeof query.page_id === 'string' ? decodeCursor(order, query.page_id) : undefined;
      if (cursor?.ok) criteria.after = cursor.key;
      const page = await store.searchAll(criteria);
      const known = new Map(
        await Promise.all([...new Set(page.hits.map((hit) => hit.key.hex))].map(async (hex) => [hex, await knownSecrets(hex)] as const)),
      );
      const hits = page.hits.map((hit) => ({ ...hit, json: maskedJson(hit.json, known.get(hit.key.hex)) }));
      return { status: 200, body: storedEventPageBody(hits, page.next && encodeCursor(order, page.next)) };
    },

    async countStoredEvents({ query, parsed }) {
      return { status: 200, body: await store.countAll(eventFiltersOf(query, parsed)) };
    },

    async exportStoredConversation({ query, parsed }) {
      const hex = conversationHex(parsed);
      const events = await store.exportEvents(hex);
      if (!events) return conversationNotFound(hex);
      const title = (await store.listConversations()).find((summary) => summary.hex === hex)?.title ?? null;
      const format = query.format ?? queryDefault('exportStoredConversation', 'format');
      const info = format === 'otlp' || format === 'atif' ? await catalog.get(hex, false) : undefined;
      const file = conversationExport(format, { conversationId: hyphenate(hex), title, info }, events, await knownSecrets(hex));
      return { status: 200, body: new StreamedFile(file.contentType, file.fileName, endingWhole(file.chunks, hex, stillStored)) };
    },

    async searchConversations({ query }) {
      const page = await catalog.search({
        status: query.status,
        sortOrder: query.sort_order ?? queryDefault('searchConversations', 'sort_order'),
        pageId: typeof query.page_id === 'string' ? query.page_id : undefined,
        limit: query.limit ?? queryDefault('searchConversations', 'limit'),
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
      const archive = trajectoryArchive(hex, files, await knownSecrets(hex));
      // The catalog's own look, as the archive is of what it lists (a conversation may have files and no events).
      const stillListed = async () => (await catalog.files(hex)) !== undefined;
      return { status: 200, body: new StreamedFile('application/octet-stream', `${hex}.zip`, endingWhole(archive, hex, stillListed)) };
    },
  };
}

/**
 * A file's chunks, and at their end a look that the conversation is still there: a store
 * whose conversation is removed while it is read may simply run out of events, and a file
 * that ends then would look whole. When it is gone the stream fails instead, and the
 * response is cut (the error path, errors.ts), so the client sees an incomplete transfer.
 */
async function* endingWhole(chunks: AsyncIterable<Buffer>, hex: string, stillThere: (hex: string) => Promise<boolean>): AsyncGenerator<Buffer> {
  yield* chunks;
  if (!(await stillThere(hex))) throw new Error(`The conversation ${hyphenate(hex)} was removed while it was being downloaded`);
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const NULL = Buffer.from('null');

/** The reference's 404 for an unknown conversation names it in the hyphenated form. */
function conversationNotFound(hex: string): { status: 404; body: NotFoundError } {
  return { status: 404, body: { detail: `Conversation not found: ${hyphenate(hex)}` } };
}
