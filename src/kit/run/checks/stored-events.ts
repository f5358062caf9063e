/**
 * The search across stored conversations (`searchStoredEvents`, `countStoredEvents`: this
 * project's own operations, which the reference server does not have), judged against the
 * per-conversation search the other checks already trust: the hits of the conversation
 * under test are exactly its own search with the same filters, in order; the whole walk
 * keeps timestamp, then conversation id order, each hit once, at any page size and
 * reversed exactly for TIMESTAMP_DESC; the count equals the walk. A server without the
 * operations answers their paths as an unknown route and gets "not implemented".
 */
import { isDeepStrictEqual } from 'node:util';
import type { paths } from '../../../contract';
import type { CheckContext } from '../context';
import { MAX_PAGES_PER_WALK } from '../context';
import { describeFilters, type Filters } from '../expectations';
import type { Exchange } from '../../http';
import { observeEvent, describeEvent, type ObservedEvent } from '../observed-event';
import { type Check, type CheckOutcome, type Finding, count as plural, notImplemented, skipped, verdict } from '../types';
import { filterQuery } from './reference-operations';
import { seedFilterSets } from './filters';
import { exchangeOrOutcome, statusAndBody, unfinishedWalk } from './support';

const SEARCH_PATH = '/api/stored-conversations/events/search' satisfies keyof paths;
const COUNT_PATH = '/api/stored-conversations/events/count' satisfies keyof paths;
const ROUTE_NOT_FOUND = { detail: 'Not Found' };

/** One hit of the search across conversations, read without trusting it. */
interface ObservedHit {
  /** The conversation id as 32 lower-case hex digits, or the value as sent when it is not a UUID. */
  conversation: string;
  event: ObservedEvent;
}

type HitWalk = { ok: true; hits: ObservedHit[]; pages: Exchange[] } | { ok: false; outcome: CheckOutcome };

const walks = new WeakMap<CheckContext, Map<string, Promise<HitWalk>>>();
const probes = new WeakMap<CheckContext, Promise<CheckOutcome | undefined>>();

function hexOf(conversationId: unknown): string {
  const text = String(conversationId);
  const hex = text.replace(/[{}-]|^urn:uuid:/gi, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) ? hex : text;
}

/** Undefined when the server has the operations; otherwise the "not implemented" (or the failure) that ends every check here. */
function unavailable(context: CheckContext): Promise<CheckOutcome | undefined> {
  const probe =
    probes.get(context) ??
    (async () => {
      const sent = exchangeOrOutcome(await context.get(COUNT_PATH), `probing GET ${COUNT_PATH}`);
      if ('outcome' in sent) return sent.outcome;
      const { exchange } = sent;
      if (exchange.status === 404 && exchange.json.ok && isDeepStrictEqual(exchange.json.value, ROUTE_NOT_FOUND)) {
        return notImplemented(
          `the server has no search across stored conversations: GET ${COUNT_PATH} answered ${statusAndBody(exchange)}, the answer of an unknown route (these are this project's own operations; the reference server does not have them)`,
        );
      }
      return undefined;
    })();
  probes.set(context, probe);
  return probe;
}

/** Walks every page of a search across conversations, following `next_page_id`, within the kit's page bound. Shared by the checks. */
function walkHits(context: CheckContext, filters: Filters, limit: number, sortOrder: 'TIMESTAMP' | 'TIMESTAMP_DESC' = 'TIMESTAMP'): Promise<HitWalk> {
  const perContext = walks.get(context) ?? new Map<string, Promise<HitWalk>>();
  walks.set(context, perContext);
  const key = JSON.stringify([filters, limit, sortOrder]);
  const walk = perContext.get(key) ?? sendWalk(context, filters, limit, sortOrder);
  perContext.set(key, walk);
  return walk;
}

async function sendWalk(context: CheckContext, filters: Filters, limit: number, sortOrder: string): Promise<HitWalk> {
  const what = `search across conversations with ${describeFilters(filters)}, limit ${limit}, ${sortOrder}`;
  const hits: ObservedHit[] = [];
  const pages: Exchange[] = [];
  const cursors = new Set<string>();
  let pageId: string | undefined;
  for (let page = 0; page < MAX_PAGES_PER_WALK; page++) {
    const query = [
      filterQuery(filters),
      `limit=${limit}`,
      `sort_order=${sortOrder}`,
      pageId === undefined ? undefined : `page_id=${encodeURIComponent(pageId)}`,
    ]
      .filter(Boolean)
      .join('&');
    const sent = exchangeOrOutcome(await context.get(`${SEARCH_PATH}?${query}`), what);
    if ('outcome' in sent) return { ok: false, outcome: sent.outcome };
    const { exchange } = sent;
    pages.push(exchange);
    const body = exchange.json.ok ? (exchange.json.value as { items?: unknown; next_page_id?: unknown }) : undefined;
    if (exchange.status !== 200 || !body || !Array.isArray(body.items)) {
      return {
        ok: false,
        outcome: verdict([
          { message: `${what}: page ${page + 1} answered ${statusAndBody(exchange)}`, expected: '200 with a StoredEventPage', exchange },
        ]),
      };
    }
    for (const item of body.items as { conversation_id?: unknown; event?: unknown }[]) {
      hits.push({ conversation: hexOf(item?.conversation_id), event: observeEvent(item?.event, hits.length) });
    }
    if (body.items.length > limit) {
      return {
        ok: false,
        outcome: verdict([{ message: `${what}: a page of ${plural(body.items.length, 'item')}`, expected: `at most ${limit}`, exchange }]),
      };
    }
    if (body.next_page_id === null) return { ok: true, hits, pages };
    if (typeof body.next_page_id !== 'string' || cursors.has(body.next_page_id)) {
      return {
        ok: false,
        outcome: verdict([
          {
            message: `${what}: next_page_id ${JSON.stringify(body.next_page_id)} ends the walk without a last page`,
            expected: 'a new string, or null on the last page',
            exchange,
          },
        ]),
      };
    }
    cursors.add(body.next_page_id);
    pageId = body.next_page_id;
  }
  return { ok: false, outcome: skipped(`${what}: more than ${MAX_PAGES_PER_WALK} pages; the store is too large for the kit's bound on traffic`) };
}

function hitLabel(hit: ObservedHit): string {
  return `${describeEvent(hit.event)} of ${hit.conversation}`;
}

/** The filter sets judged here: none, and the first of each kind the filter checks build from the conversation's data. */
function filterSets(context: CheckContext): Filters[] {
  const sets: Filters[] = [{}];
  for (const name of ['kind', 'source', 'body', 'timestamp__gte'] as const) {
    const first = seedFilterSets(context).find((filters) => Object.keys(filters).length === 1 && filters[name] !== undefined);
    if (first) sets.push(first);
  }
  return sets;
}

function orderFindings(hits: readonly ObservedHit[], label: string, pages: readonly Exchange[]): Finding[] {
  for (let i = 1; i < hits.length; i++) {
    const before = hits[i - 1]!;
    const after = hits[i]!;
    const bt = before.event.micros ?? -Infinity;
    const at = after.event.micros ?? -Infinity;
    if (at > bt || (at === bt && after.conversation >= before.conversation)) continue;
    return [
      {
        message: `${label}: ${hitLabel(after)} comes after ${hitLabel(before)}`,
        expected: 'timestamps ascending, then conversation ids ascending, across pages too',
        ...(pages[0] ? { exchange: pages[0] } : {}),
      },
    ];
  }
  const seen = new Set<string>();
  for (const hit of hits) {
    const key = `${hit.conversation} ${hit.event.key}`;
    if (seen.has(key)) return [{ message: `${label}: ${hitLabel(hit)} returned more than once`, expected: 'each event once' }];
    seen.add(key);
  }
  return [];
}

const unionProperty: Check = {
  id: 'stored.union',
  level: 'seed',
  title:
    "the search across stored conversations holds exactly the conversation's own search with the same filters, in its order, and keeps timestamp then conversation id order, each hit once",
  run: async (context) => {
    const missing = await unavailable(context);
    if (missing) return missing;
    const own = hexOf(context.conversationId);
    const findings: Finding[] = [];
    const sets = filterSets(context);
    for (const filters of sets) {
      const label = describeFilters(filters);
      const across = await walkHits(context, filters, context.contract.pageSize.maximum);
      if (!across.ok) return across.outcome;
      const single = await context.walk({ ...filters, limit: context.contract.pageSize.maximum });
      const unfinished = unfinishedWalk(single, label);
      if (unfinished) return unfinished;
      const mine = across.hits.filter((hit) => hit.conversation === own).map((hit) => hit.event.key);
      const expected = single.events.map((event) => event.key);
      if (!isDeepStrictEqual(mine, expected)) {
        findings.push({
          message: `${label}: the search across conversations holds ${plural(mine.length, 'event')} of this conversation, its own search ${expected.length}${mine.length === expected.length ? ', in another order' : ''}`,
          expected: "exactly the conversation's own search, in its order",
          ...(across.pages[0] ? { exchange: across.pages[0] } : {}),
        });
      }
      findings.push(...orderFindings(across.hits, label, across.pages));
    }
    return verdict(findings, `${sets.length} filter sets`);
  },
};

const exactlyOnce: Check = {
  id: 'stored.exactly-once',
  level: 'seed',
  title:
    'paging the search across stored conversations with limit 7 returns what the largest page size does, and TIMESTAMP_DESC is its exact reverse',
  run: async (context) => {
    const missing = await unavailable(context);
    if (missing) return missing;
    const label = (walk: string) => `search across conversations, ${walk}`;
    const large = await walkHits(context, {}, context.contract.pageSize.maximum);
    if (!large.ok) return large.outcome;
    const small = await walkHits(context, {}, 7);
    if (!small.ok) return small.outcome;
    const descending = await walkHits(context, {}, context.contract.pageSize.maximum, 'TIMESTAMP_DESC');
    if (!descending.ok) return descending.outcome;
    const keys = (walk: { hits: ObservedHit[] }) => walk.hits.map((hit) => `${hit.conversation} ${hit.event.key}`);
    const findings: Finding[] = [];
    if (!isDeepStrictEqual(keys(small), keys(large))) {
      findings.push({
        message: `${label('limit 7')}: ${plural(small.hits.length, 'hit')}, limit ${context.contract.pageSize.maximum}: ${large.hits.length}, or the same in another order`,
        expected: 'the same hits in the same order at any page size',
        ...(small.pages[1] ? { exchange: small.pages[1] } : {}),
      });
    }
    if (!isDeepStrictEqual(keys(descending), keys(large).reverse())) {
      findings.push({
        message: `${label('TIMESTAMP_DESC')} is not the exact reverse of TIMESTAMP`,
        expected: 'TIMESTAMP_DESC reverses the whole order',
        ...(descending.pages[0] ? { exchange: descending.pages[0] } : {}),
      });
    }
    findings.push(...orderFindings(small.hits, label('limit 7'), small.pages));
    return verdict(findings, `${plural(large.hits.length, 'hit')} across the store`);
  },
};

const countMatchesWalk: Check = {
  id: 'stored.count-matches-walk',
  level: 'seed',
  title: 'the count across stored conversations equals the number of hits a full walk of the search across them returns, with each filter set',
  run: async (context) => {
    const missing = await unavailable(context);
    if (missing) return missing;
    const findings: Finding[] = [];
    const sets = filterSets(context);
    for (const filters of sets) {
      const walk = await walkHits(context, filters, context.contract.pageSize.maximum);
      if (!walk.ok) return walk.outcome;
      const query = filterQuery(filters);
      const sent = exchangeOrOutcome(
        await context.get(query ? `${COUNT_PATH}?${query}` : COUNT_PATH),
        `count across conversations with ${describeFilters(filters)}`,
      );
      if ('outcome' in sent) return sent.outcome;
      const { exchange } = sent;
      const value = exchange.json.ok ? exchange.json.value : undefined;
      if (exchange.status !== 200 || value !== walk.hits.length) {
        findings.push({
          message: `count across conversations with ${describeFilters(filters)} answered ${statusAndBody(exchange)}; the walk returns ${plural(walk.hits.length, 'hit')}`,
          expected: `200 ${walk.hits.length}`,
          exchange,
        });
      }
    }
    return verdict(findings, `${sets.length} filter sets`);
  },
};

export function storedEventChecks(): Check[] {
  return [unionProperty, exactlyOnce, countMatchesWalk];
}
