/**
 * The framework floor: our server's own application (createApp: Express with the same
 * settings, request validation from the contract, the operation routing, the one error
 * path) and our listener, over a store that answers every search with the page the
 * baseline serves, precomputed. Measured beside the baseline and our server, it shows what
 * Express and express-openapi-validator cost by themselves, so the most any server built on
 * them can reach on this machine; what our server costs beyond it is the store and the
 * search. Started like the baseline (precomputed-server.ts): routes arrive as the first IPC
 * message, the port goes back.
 */
import { createLogger } from '../../src/log';
import { createApp } from '../../src/server/app';
import { listen } from '../../src/server/listen';
import { loadOpenApiDocument } from '../../src/contract';
import { searchCriteriaOf } from '../../src/server/criteria';
import { operationRoutes } from '../../src/server/operation-routes';
import { ParsedValues, isParsedHere } from '../../src/server/parsed-values';
import type { SearchCriteria } from '../../src/search';
import { type EventStore, type StoredPage, emptyStoreHealth } from '../../src/store/event-store';
import { type PrecomputedRoute, receiveRoutes, reportListening } from './precomputed-server';

/**
 * Answers exactly the precomputed searches, each with its route's page split back into its
 * items' bytes, so the application frames and writes it as it writes any page; any other
 * search finds no conversation.
 */
function precomputedStore(routes: readonly PrecomputedRoute[]): EventStore {
  const pages = new Map<string, StoredPage>();
  const search = operationRoutes(loadOpenApiDocument()).routes.find((route) => route.operationId === 'searchConversationEvents');
  const parsedQueryParameters = (search?.parameters ?? []).filter((parameter) => parameter.in === 'query' && isParsedHere(parameter));
  for (const route of routes) {
    const url = new URL(route.path, 'http://floor');
    const hex = /^\/api\/conversations\/([0-9a-f]{32})\/events\/search$/.exec(url.pathname)?.[1];
    if (hex === undefined) continue;
    const query = Object.fromEntries(url.searchParams);
    const parsed = new ParsedValues();
    for (const parameter of parsedQueryParameters) {
      const value = query[parameter.name];
      if (value !== undefined) parsed.parse(parameter.name, parameter.schema.format, value);
    }
    const criteria = searchCriteriaOf({ ...query, limit: query['limit'] === undefined ? undefined : Number(query['limit']) } as never, parsed);
    const page = JSON.parse(route.body.toString('utf8')) as { items: unknown[]; next_page_id: string | null };
    pages.set(searchKey(hex, criteria), {
      itemsJson: [Buffer.from(page.items.map((item) => JSON.stringify(item)).join(','))],
      nextPageId: page.next_page_id,
    });
  }
  return {
    search: async (hex, criteria) => pages.get(searchKey(hex, criteria)),
    count: async () => undefined,
    getEvent: async () => undefined,
    listConversations: async () => [],
    searchAll: async () => ({ hits: [], next: null }),
    countAll: async () => 0,
    exportEvents: async () => undefined,
    health: () => ({ ...emptyStoreHealth(), conversationsLoaded: pages.size }),
    close: async () => undefined,
  };
}

function searchKey(hex: string, criteria: SearchCriteria): string {
  return JSON.stringify([hex, criteria]);
}

receiveRoutes(async (routes) => {
  const app = createApp({ store: precomputedStore(routes), logger: createLogger() });
  const running = await listen(app, '127.0.0.1', 0);
  reportListening(running.server);
});
