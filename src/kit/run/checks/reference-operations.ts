/**
 * The reference's operations beyond search (docs/reference-behaviour.md and docs/contract-kit.md), judged against the
 * search itself: `count` equals the length of a full walk with the same filters, and
 * get-by-id gives back each walked event as the same value. Keys whose value is null are
 * ignored there, because the reference answers get-by-id through its response model
 * instead of leaving such keys out as search does. A server without one of the operations
 * gets "not implemented" for these checks (see availability.ts).
 */
import { randomUUID } from 'node:crypto';
import { firstDifference } from '../compare';
import type { CheckContext } from '../context';
import { describeFilters, type Filters } from '../expectations';
import type { Exchange } from '../../http';
import { describeEvent, type ObservedEvent } from '../observed-event';
import { pageOf } from '../search-request';
import { count as plural, skipped, verdict, type Check, type CheckOutcome, type Finding } from '../types';
import { whenAvailable } from './availability';
import { seedFilterSets } from './filters';
import { referenceFilterSets } from './reference-accepts';
import { encodeValue, exchangeOrOutcome, outcomeOfFailure, statusAndBody, unfinishedWalk } from './support';

/** Filters as a query string, each value percent-encoded as a careful client does. */
export function filterQuery(filters: Filters): string | undefined {
  const pairs = Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${encodeValue(String(value))}`);
  return pairs.length > 0 ? pairs.join('&') : undefined;
}

export type CountAnswer = { ok: true; count: number; exchange: Exchange } | { ok: false; outcome: CheckOutcome } | { ok: false; finding: Finding };

/** Sends one count request and reads its bare integer. */
export async function countOf(context: CheckContext, filters: Filters): Promise<CountAnswer> {
  const what = `count with ${describeFilters(filters)}`;
  const sent = exchangeOrOutcome(await context.get(context.eventsPath('count', undefined, filterQuery(filters))), what);
  if ('outcome' in sent) return { ok: false, outcome: sent.outcome };
  const { exchange } = sent;
  const value = exchange.json.ok ? exchange.json.value : undefined;
  if (exchange.status !== 200 || typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    return {
      ok: false,
      finding: { message: `${what} answered ${statusAndBody(exchange)}`, expected: '200 with a bare non-negative JSON integer', exchange },
    };
  }
  return { ok: true, count: value, exchange };
}

const countMatchesWalk: Check = {
  id: 'ref.count.matches-walk',
  level: 'reference',
  title: 'count equals the number of events a full search walk returns, with no filter and with every filter set the filter checks use',
  run: (context) =>
    whenAvailable(context, ['count'], async () => {
      const cases: Filters[] = [{}, ...seedFilterSets(context), ...referenceFilterSets(context)];
      const findings: Finding[] = [];
      for (const filters of cases) {
        const walk = await context.walk({ ...filters, limit: context.contract.pageSize.maximum });
        const unfinished = unfinishedWalk(walk, describeFilters(filters));
        if (unfinished?.status === 'skipped') return unfinished;
        if (unfinished) continue;
        const answer = await countOf(context, filters);
        if (!answer.ok && 'outcome' in answer) return answer.outcome;
        if (!answer.ok) findings.push(answer.finding);
        else if (answer.count !== walk.events.length) {
          findings.push({
            message: `count with ${describeFilters(filters)} is ${answer.count}, a full search walk returns ${plural(walk.events.length, 'event')}`,
            expected: String(walk.events.length),
            exchange: answer.exchange,
          });
        }
      }
      return verdict(findings, `${cases.length} filter sets`);
    }),
};

/** A value with every null-valued key removed, at any depth. */
export function withoutNullKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).flatMap(([key, inner]) => (inner === null ? [] : [[key, withoutNullKeys(inner)]])));
}

/** Requests each event should cost, kept below the budget so the audits still have room. */
const RESERVED_REQUESTS = 50;
const SHOWN_MISMATCHES = 5;

const getEventSameAsWalk: Check = {
  id: 'ref.get-event.same-as-walk',
  level: 'reference',
  title: 'every event of the unfiltered walk comes back from get-by-id as the same value (keys whose value is null ignored)',
  run: (context) =>
    whenAvailable(context, ['get-event'], async () => {
      const withId = context.data.events.filter((event): event is ObservedEvent & { id: string } => event.id !== undefined);
      if (withId.length === 0) return skipped('no event with an id in this conversation');
      const affordable = Math.max(0, context.requestsLeft() - RESERVED_REQUESTS);
      const chosen = spread(withId, affordable);
      if (chosen.length === 0) return skipped('the request budget is used up; raise --max-requests to check it');
      const findings: Finding[] = [];
      for (const event of chosen) {
        const sent = await context.get(context.eventsPath(encodeURIComponent(event.id)));
        if (!sent.ok) return outcomeOfFailure(sent.failure, `get-by-id of ${describeEvent(event)}`);
        const { exchange } = sent;
        if (exchange.status !== 200 || !exchange.json.ok) {
          findings.push({
            message: `get-by-id of ${describeEvent(event)} answered ${statusAndBody(exchange)}`,
            expected: '200 with the event',
            exchange,
          });
          continue;
        }
        const difference = firstDifference(withoutNullKeys(exchange.json.value), withoutNullKeys(event.raw), '$');
        if (difference)
          findings.push({
            message: `get-by-id of ${describeEvent(event)} differs from the search's copy at ${difference} (get-by-id vs search)`,
            expected: 'the same event as the search returns',
            exchange,
          });
      }
      const sample =
        chosen.length < withId.length
          ? `${chosen.length} of ${withId.length} events (spread over the conversation; the request budget allowed no more)`
          : `all ${plural(withId.length, 'event')}`;
      const shown =
        findings.length > SHOWN_MISMATCHES
          ? [...findings.slice(0, SHOWN_MISMATCHES), { message: `and ${findings.length - SHOWN_MISMATCHES} more events that differ` }]
          : findings;
      return verdict(shown, `${sample} fetched by id`);
    }),
};

/** Up to `max` items spread evenly over the list, first and last included. */
function spread<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  if (max <= 0) return [];
  if (max === 1) return [items[0]!];
  return Array.from({ length: max }, (_, index) => items[Math.round((index * (items.length - 1)) / (max - 1))]!);
}

const unknownEventId: Check = {
  id: 'ref.get-event.unknown-id',
  level: 'reference',
  title: 'an unknown event id is a 404 {"detail": "Not Found"}, not a 5xx',
  run: (context) =>
    whenAvailable(context, ['get-event'], async () => {
      const sent = exchangeOrOutcome(await context.get(context.eventsPath(`no-such-event-${randomUUID()}`)), 'get-by-id of an unknown id');
      if ('outcome' in sent) return sent.outcome;
      const { exchange } = sent;
      const expected = '404 {"detail": "Not Found"} (the TypeScript client turns a 404 into null)';
      if (exchange.status >= 500)
        return verdict([{ message: `an unknown event id made the server fail: ${statusAndBody(exchange)}`, expected, exchange }]);
      const detail = exchange.json.ok ? (exchange.json.value as { detail?: unknown } | null)?.detail : undefined;
      return verdict(
        exchange.status === 404 && detail === 'Not Found'
          ? []
          : [{ message: `an unknown event id answered ${statusAndBody(exchange)}`, expected, exchange }],
      );
    }),
};

const reservedWords: Check = {
  id: 'ref.get-event.reserved-words',
  level: 'reference',
  title: '"search" and "count" after /events/ are the search and count operations, never taken as event ids',
  run: (context) =>
    whenAvailable(context, ['count', 'get-event'], async () => {
      const findings: Finding[] = [];
      const searched = exchangeOrOutcome(await context.get(context.eventsPath('search')), '/events/search');
      if ('outcome' in searched) return searched.outcome;
      if (!pageOf(searched.exchange))
        findings.push({
          message: `/events/search answered ${statusAndBody(searched.exchange)}`,
          expected: '200 with an EventPage',
          exchange: searched.exchange,
        });
      const counted = await countOf(context, {});
      if (!counted.ok && 'outcome' in counted) return counted.outcome;
      if (!counted.ok) findings.push(counted.finding);
      else if (counted.count !== context.data.events.length) {
        findings.push({
          message: `/events/count answered ${counted.count}`,
          expected: `${context.data.events.length}, the number of events of the conversation`,
          exchange: counted.exchange,
        });
      }
      return verdict(findings);
    }),
};

export function referenceOperationChecks(): Check[] {
  return [countMatchesWalk, getEventSameAsWalk, unknownEventId, reservedWords];
}
