/**
 * What a check may use: the discovered data, the two ways to send a request (the typed
 * client for well-formed searches, a raw GET for what it cannot express), and walks that
 * are shared between checks, so that five checks about one walk cost one walk.
 */
import type { GetResult, Transport } from './http';
import type { Discovered } from './discovery';
import type { FixtureManifest } from './fixture-manifest';
import type { Search } from './search-request';
import type { TrafficAudit } from './traffic-audit';
import { walkPages, type Walk, type WalkQuery } from './walk';

/** Pages one walk may take, whatever the data: a bound on traffic, not a rule of the contract. */
export const MAX_PAGES_PER_WALK = 400;

export interface RunSettings {
  /** fast-check seed; printed, so `--seed` replays a run. */
  seed: number;
  /** Generated queries per property check. */
  runs: number;
  /** Time a property check may take before it stops generating. */
  propertyTimeLimitMs: number;
}

export interface CheckContext {
  /** The conversation id as given. */
  conversationId: string;
  data: Discovered;
  search: Search;
  /** A raw GET of a path and query relative to the base URL, encoded exactly as given. */
  get(path: string): Promise<GetResult>;
  /**
   * `/api/conversations/<id>/events/search`, then `?` and `query` when one is given; the id
   * and the query are inserted as given (not encoded).
   */
  searchPath(conversationId?: string, query?: string): string;
  /** `/api/conversations/<id>/events/<tail>`, then `?` and `query`; everything inserted as given. */
  eventsPath(tail: string, conversationId?: string, query?: string): string;
  /** `ws://<host>/sockets/events/<id>`, then `?` and `query`: the events socket, which the transport does not carry. */
  socketUrl(conversationId?: string, query?: string): string;
  /** The session key the run was given, for the socket (never printed). */
  sessionApiKey?: string;
  /** Walks every page of a query; shared by every check that asks for the same walk. */
  walk(query: WalkQuery, maxPages?: number): Promise<Walk>;
  requestsLeft(): number;
  settings: RunSettings;
  audit: TrafficAudit;
  /** Present with `--fixture`: the events the conversation is known to hold. */
  manifest?: FixtureManifest;
}

export interface ContextParts {
  conversationId: string;
  data: Discovered;
  transport: Transport;
  search: Search;
  settings: RunSettings;
  audit: TrafficAudit;
  manifest?: FixtureManifest;
  sessionApiKey?: string;
}

export function createCheckContext(parts: ContextParts): CheckContext {
  const walks = new Map<string, Promise<Walk>>();
  const { transport, data } = parts;
  // The discovery walk is the plain limit=100 walk; no need to send it twice.
  walks.set(`${canonicalKey({ limit: 100 })}|${pagesFor(data.events.length, 100)}`, Promise.resolve(data.walk));
  return {
    conversationId: parts.conversationId,
    data,
    search: parts.search,
    get: (path) => transport.get(path),
    searchPath: (conversationId = parts.conversationId, query) => eventsPath('search', conversationId, query),
    eventsPath: (tail, conversationId = parts.conversationId, query) => eventsPath(tail, conversationId, query),
    socketUrl: (conversationId = parts.conversationId, query) =>
      `${transport.baseUrl.replace(/^http/, 'ws')}/sockets/events/${conversationId}${query === undefined ? '' : `?${query}`}`,
    ...(parts.sessionApiKey === undefined ? {} : { sessionApiKey: parts.sessionApiKey }),
    walk(query, maxPages = pagesFor(data.events.length, query.limit)) {
      const key = `${canonicalKey(query)}|${maxPages}`;
      const walk = walks.get(key) ?? walkPages(parts.search, query, maxPages);
      walks.set(key, walk);
      return walk;
    },
    requestsLeft: () => transport.maxRequests - transport.sent,
    settings: parts.settings,
    audit: parts.audit,
    ...(parts.manifest ? { manifest: parts.manifest } : {}),
  };
}

function eventsPath(tail: string, conversationId: string, query: string | undefined): string {
  return `/api/conversations/${conversationId}/events/${tail}${query === undefined ? '' : `?${query}`}`;
}

/** Enough pages for every event plus a few, so a server that under-fills pages is still walked to its end. */
export function pagesFor(eventCount: number, limit = 100): number {
  return Math.min(MAX_PAGES_PER_WALK, Math.ceil(eventCount / limit) + 3);
}

function canonicalKey(query: WalkQuery): string {
  const entries = Object.entries(query).filter(([, value]) => value !== undefined && value !== null);
  return JSON.stringify(entries.sort(([a], [b]) => a.localeCompare(b)));
}
