import createClient from 'openapi-fetch';
import type {
  CountQuery,
  Event,
  EventPage,
  ExportFormat,
  SearchQuery,
  StoredConversationList,
  StoredEventHit,
  StoredEventPage,
  StoredEventsCountQuery,
  StoredEventsSearchQuery,
  paths,
} from '../contract/types';
import { AgentServerError, PagingError, detailOf } from './errors';

export interface AgentServerClientOptions {
  /** Where the server is, such as `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** Sent as `X-Session-API-Key` when the server requires session keys. */
  sessionApiKey?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /** A fetch implementation; the global one by default. */
  fetch?: typeof fetch;
}

/** The filters of a search, without the cursor: what an iteration repeats on every page. */
export type SearchFilters = Omit<SearchQuery, 'page_id'>;

export type SearchResult = { ok: true; page: EventPage; response: Response } | { ok: false; error: AgentServerError; response: Response };

export type StoredConversationsResult =
  | { ok: true; list: StoredConversationList; response: Response }
  | { ok: false; error: AgentServerError; response: Response };

/** The filters a count takes: the search's, without paging or order. */
export type CountFilters = CountQuery;

export type CountResult = { ok: true; count: number; response: Response } | { ok: false; error: AgentServerError; response: Response };

/** The filters of a search across stored conversations, without the cursor: what an iteration repeats on every page. */
export type StoredEventsFilters = Omit<StoredEventsSearchQuery, 'page_id'>;

export type StoredEventsResult = { ok: true; page: StoredEventPage; response: Response } | { ok: false; error: AgentServerError; response: Response };

/** An export's response, its body not read yet: stream it from `response.body`, or read it whole with `response.text()`. */
export type ExportResult =
  | { ok: true; fileName: string | undefined; response: Response }
  | { ok: false; error: AgentServerError; response: Response };

export type EventResult = { ok: true; event: Event; response: Response } | { ok: false; error: AgentServerError; response: Response };

/**
 * Creates a typed client of the contract's operations. `searchEvents`, `countEvents` and
 * `getEvent` return errors as values; `iterateEvents` walks every page and throws an
 * `AgentServerError` when a request fails. `api` is openapi-fetch's client typed from the
 * contract's `paths`: every operation of the contract, a new one included, is callable there
 * (`client.api.GET('/api/...', { params })`) with its parameters and answers typed, before
 * any convenience function is written for it.
 */
export function createAgentServerClient(options: AgentServerClientOptions) {
  const http = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: requestHeaders(options),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  async function searchEvents(conversationId: string, query: SearchQuery = {}): Promise<SearchResult> {
    const { data, error, response } = await http.GET('/api/conversations/{conversation_id}/events/search', {
      params: { path: { conversation_id: conversationId }, query },
    });
    if (data !== undefined) return { ok: true, page: data, response };
    return failed(response, error);
  }

  async function countEvents(conversationId: string, filters: CountFilters = {}): Promise<CountResult> {
    const { data, error, response } = await http.GET('/api/conversations/{conversation_id}/events/count', {
      params: { path: { conversation_id: conversationId }, query: filters },
    });
    if (data !== undefined) return { ok: true, count: data, response };
    return failed(response, error);
  }

  /** One event by id; an id the conversation does not have is a failure with status 404. */
  async function getEvent(conversationId: string, eventId: string): Promise<EventResult> {
    const { data, error, response } = await http.GET('/api/conversations/{conversation_id}/events/{event_id}', {
      params: { path: { conversation_id: conversationId, event_id: eventId } },
    });
    if (data !== undefined) return { ok: true, event: data, response };
    return failed(response, error);
  }

  async function* iterateEvents(conversationId: string, filters: SearchFilters = {}): AsyncGenerator<Event> {
    yield* everyItem((pageId) => searchEvents(conversationId, { ...filters, page_id: pageId }));
  }

  async function listEvents(conversationId: string, filters: SearchFilters = {}): Promise<Event[]> {
    const events: Event[] = [];
    for await (const event of iterateEvents(conversationId, filters)) events.push(event);
    return events;
  }

  /** This server's list of stored conversations (not an operation of the reference server). */
  async function listStoredConversations(): Promise<StoredConversationsResult> {
    const { data, error, response } = await http.GET('/api/stored-conversations');
    if (data !== undefined) return { ok: true, list: data, response };
    return failed(response, error);
  }

  /** One page of the search across every stored conversation (this server's own operation). */
  async function searchStoredEvents(query: StoredEventsSearchQuery = {}): Promise<StoredEventsResult> {
    const { data, error, response } = await http.GET('/api/stored-conversations/events/search', { params: { query } });
    if (data !== undefined) return { ok: true, page: data, response };
    return failed(response, error);
  }

  async function countStoredEvents(filters: StoredEventsCountQuery = {}): Promise<CountResult> {
    const { data, error, response } = await http.GET('/api/stored-conversations/events/count', { params: { query: filters } });
    if (data !== undefined) return { ok: true, count: data, response };
    return failed(response, error);
  }

  /** Every hit of a search across stored conversations, page after page; throws as `iterateEvents` does. */
  async function* iterateStoredEvents(filters: StoredEventsFilters = {}): AsyncGenerator<StoredEventHit> {
    yield* everyItem((pageId) => searchStoredEvents({ ...filters, page_id: pageId }));
  }

  /** A stored conversation as a file; the body is left to the caller, so a long one can be streamed to disk. */
  async function exportConversation(conversationId: string, format: ExportFormat = 'jsonl'): Promise<ExportResult> {
    const { error, response } = await http.GET('/api/stored-conversations/{conversation_id}/export', {
      params: { path: { conversation_id: conversationId }, query: { format } },
      parseAs: 'stream',
    });
    if (!response.ok) return failed(response, error ?? (await response.json().catch(() => undefined)));
    return { ok: true, fileName: attachmentFileName(response.headers.get('content-disposition')), response };
  }

  return {
    api: http,
    searchEvents,
    countEvents,
    getEvent,
    iterateEvents,
    listEvents,
    listStoredConversations,
    searchStoredEvents,
    countStoredEvents,
    iterateStoredEvents,
    exportConversation,
  };
}

type PageResult<Item> = { ok: true; page: { items: Item[]; next_page_id?: string | null } } | { ok: false; error: AgentServerError };

/**
 * Every item of a paged search, page after page: throws the error of a page that failed, and
 * a PagingError when the server hands out the same cursor twice, rather than looping forever.
 */
async function* everyItem<Item>(searchPage: (pageId: string | undefined) => Promise<PageResult<Item>>): AsyncGenerator<Item> {
  const seenCursors = new Set<string>();
  let pageId: string | undefined;
  do {
    const result = await searchPage(pageId);
    if (!result.ok) throw result.error;
    yield* result.page.items;
    pageId = result.page.next_page_id ?? undefined;
    if (pageId !== undefined && seenCursors.has(pageId)) {
      throw new PagingError(`the server returned next_page_id ${JSON.stringify(pageId)} twice; stopping instead of looping forever`);
    }
    if (pageId !== undefined) seenCursors.add(pageId);
  } while (pageId);
}

function failed(response: Response, body: unknown): { ok: false; error: AgentServerError; response: Response } {
  return { ok: false, error: new AgentServerError(response.status, detailOf(body), response.url), response };
}

export type AgentServerClient = ReturnType<typeof createAgentServerClient>;

function requestHeaders(options: AgentServerClientOptions): Record<string, string> {
  const headers = { ...options.headers };
  if (options.sessionApiKey !== undefined) headers['X-Session-API-Key'] = options.sessionApiKey;
  return headers;
}

function attachmentFileName(disposition: string | null): string | undefined {
  return disposition ? /filename="([^"]*)"/.exec(disposition)?.[1] : undefined;
}
