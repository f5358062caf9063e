/**
 * What a check may use: the discovered data, the two ways to send a request (the typed
 * client for well-formed searches, a raw GET for what it cannot express), and walks that
 * are shared between checks, so that five checks about one walk cost one walk.
 */
import type { ExchangeVerdict } from '../exchange-judge';
import type { Exchange, GetResult, RequestBody, Transport } from '../http';
import type { Discovered } from './discovery';
import type { FixtureManifest } from './fixture-manifest';
import type { SearchContract } from '../search-contract';
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
  /** A raw GET of a path and query relative to the base URL, encoded exactly as given, with a body when given. */
  get(path: string, body?: RequestBody): Promise<GetResult>;
  /** Another method, without a body: only for what the contract does not declare. */
  request(method: string, path: string): Promise<GetResult>;
  /** The contract's verdict on one exchange: operation, status, content type, body (the proxy's rules). */
  judge(exchange: Exchange): ExchangeVerdict;
  /** The operations the contract-driven checks exercise (all, or those `--changed-since` names). */
  operationsInScope: ReadonlySet<string>;
  /** `--require-implemented`: an operation the server does not have fails instead of being reported as not implemented. */
  requireImplemented: boolean;
  /**
   * The search's path as the contract writes it (`/api/conversations/<id>/events/search`),
   * then `?` and `query` when one is given; the id and the query are inserted as given (not encoded).
   */
  searchPath(conversationId?: string, query?: string): string;
  /**
   * The path of the search (`tail` `search`), the count (`count`) or get-by-id (any other
   * `tail`, the event id) as the contract writes it, then `?` and `query`; everything inserted as given.
   */
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
  /** The contract's values the checks use: page-size bounds, enums, filter names. */
  contract: SearchContract;
  /** The number of pages a walk with `limit` (the contract's default when absent) takes, plus a few. */
  pagesFor(limit: number | undefined): number;
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
  contract: SearchContract;
  judge(exchange: Exchange): ExchangeVerdict;
  operationsInScope: ReadonlySet<string>;
  requireImplemented: boolean;
  manifest?: FixtureManifest;
  sessionApiKey?: string;
}

export function createCheckContext(parts: ContextParts): CheckContext {
  const walks = new Map<string, Promise<Walk>>();
  const { transport, data, contract } = parts;
  const pagesOf = (limit: number | undefined) => pagesFor(data.events.length, limit ?? contract.pageSize.default);
  // The discovery walk is the plain walk with the largest page; no need to send it twice.
  const largest = contract.pageSize.maximum;
  walks.set(`${canonicalKey({ limit: largest })}|${pagesOf(largest)}`, Promise.resolve(data.walk));
  return {
    conversationId: parts.conversationId,
    data,
    search: parts.search,
    get: (path, body) => transport.get(path, body),
    request: (method, path) => transport.request(method, path),
    judge: parts.judge,
    operationsInScope: parts.operationsInScope,
    requireImplemented: parts.requireImplemented,
    searchPath: (conversationId = parts.conversationId, query) => eventsPath(contract, 'search', conversationId, query),
    eventsPath: (tail, conversationId = parts.conversationId, query) => eventsPath(contract, tail, conversationId, query),
    socketUrl: (conversationId = parts.conversationId, query) =>
      `${transport.baseUrl.replace(/^http/, 'ws')}/sockets/events/${conversationId}${query === undefined ? '' : `?${query}`}`,
    ...(parts.sessionApiKey === undefined ? {} : { sessionApiKey: parts.sessionApiKey }),
    walk(query, maxPages = pagesOf(query.limit)) {
      const key = `${canonicalKey(query)}|${maxPages}`;
      const walk = walks.get(key) ?? walkPages(parts.search, query, maxPages);
      walks.set(key, walk);
      return walk;
    },
    requestsLeft: () => transport.maxRequests - transport.sent,
    settings: parts.settings,
    audit: parts.audit,
    contract,
    pagesFor: pagesOf,
    ...(parts.manifest ? { manifest: parts.manifest } : {}),
  };
}

function eventsPath(contract: SearchContract, tail: string, conversationId: string, query: string | undefined): string {
  const operation = tail === 'search' ? contract.search : tail === 'count' ? contract.count : contract.getEvent;
  // Without the operation in the contract its checks do not run; the path is only for a message then.
  const template =
    operation?.template ?? `/api/conversations/{conversation_id}/events/${tail === 'search' || tail === 'count' ? tail : '{event_id}'}`;
  const path = fillTemplate(template, { conversation_id: conversationId, event_id: tail });
  return `${path}${query === undefined ? '' : `?${query}`}`;
}

/** A path template with each `{name}` replaced by its value as given. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** Enough pages for every event plus a few, so a server that under-fills pages is still walked to its end. */
export function pagesFor(eventCount: number, limit: number): number {
  return Math.min(MAX_PAGES_PER_WALK, Math.ceil(eventCount / limit) + 3);
}

function canonicalKey(query: WalkQuery): string {
  const entries = Object.entries(query).filter(([, value]) => value !== undefined && value !== null);
  return JSON.stringify(entries.sort(([a], [b]) => a.localeCompare(b)));
}
