/**
 * Well-formed searches go through the project's typed client (src/client), so the kit
 * sends exactly what a real client sends; its fetch is the kit's transport, so timeouts,
 * the budget and the exchange log apply to them too.
 */
import { createAgentServerClient } from '../../client';
import type { SearchQuery } from '../../contract';
import type { Exchange, RequestFailure, Transport } from '../http';

/** The page a 200 carried, when its body has an `items` array; anything else is left to the checks. */
export interface ReceivedPage {
  items: unknown[];
  /** `undefined` when the key is missing, which the reference never does (docs/reference-behaviour.md, "Search"). */
  nextPageId: unknown;
  hasNextPageIdKey: boolean;
}

export type SearchOutcome = { ok: true; exchange: Exchange; page: ReceivedPage | undefined } | { ok: false; failure: RequestFailure };

export type Search = (query: SearchQuery, conversationId?: string) => Promise<SearchOutcome>;

/** A search function bound to one conversation; `conversationId` can be overridden per call. */
export function createSearch(transport: Transport, defaultConversationId: string): Search {
  return async (query, conversationId = defaultConversationId) => {
    let sent: Exchange | undefined;
    let failure: RequestFailure | undefined;
    // One client per request, so the exchange it caused is known without shared state.
    const client = createAgentServerClient({
      baseUrl: transport.baseUrl,
      fetch: async (input, init) => {
        const request = input instanceof Request ? input : new Request(input, init);
        const result = await transport.getUrl(request.url, new Headers(request.headers));
        if (!result.ok) {
          failure = result.failure;
          throw new Error(result.failure.message);
        }
        sent = result.exchange;
        return responseOf(result.exchange);
      },
    });
    try {
      await client.searchEvents(conversationId, query);
    } catch {
      // The client could not parse what came back; the exchange still says what it was.
    }
    if (sent) return { ok: true, exchange: sent, page: pageOf(sent) };
    return { ok: false, failure: failure ?? { reason: 'unreachable', path: '', url: transport.baseUrl, message: 'no request was sent' } };
  };
}

/** Reads the page a 200 carries, without trusting its shape. */
export function pageOf(exchange: Exchange): ReceivedPage | undefined {
  if (exchange.status !== 200 || !exchange.json.ok) return undefined;
  const body = exchange.json.value;
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { items?: unknown }).items)) return undefined;
  const record = body as { items: unknown[]; next_page_id?: unknown };
  return { items: record.items, nextPageId: record.next_page_id, hasNextPageIdKey: 'next_page_id' in record };
}

const BODYLESS_STATUSES = new Set([101, 204, 205, 304]);

function responseOf(exchange: Exchange): Response {
  const body = BODYLESS_STATUSES.has(exchange.status) ? null : exchange.bodyText;
  const headers = exchange.contentType ? { 'content-type': exchange.contentType } : undefined;
  const response = new Response(body, { status: exchange.status, headers });
  Object.defineProperty(response, 'url', { value: exchange.url });
  return response;
}
