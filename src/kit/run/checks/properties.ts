/**
 * Property-based checks: fast-check generates query combinations from the discovered data
 * (filters, page sizes, sort orders), the kit walks each one and compares it with what
 * the data predicts. The seed is printed, so `--seed` replays a failure. Bounded three
 * ways: `--runs`, a time limit, and a share of the request budget; past a bound, the
 * remaining runs pass without sending anything (they cannot be judged).
 */
import fc from 'fast-check';
import type { EventSortOrder } from '../../../contract';
import type { CheckContext } from '../context';
import {
  describeFilters,
  duplicatesOf,
  expectedEvents,
  firstMismatch,
  firstOrderViolation,
  listEvents,
  setDifference,
  type Filters,
} from '../expectations';
import { classPathOf, isContractKind } from '../event-kinds';
import type { Exchange } from '../../http';
import { describeEvent } from '../observed-event';
import { failed, passed, skipped, type Check, type CheckOutcome, type Finding } from '../types';
import { whenAvailable, type OptionalOperation } from './availability';
import { countOf } from './reference-operations';
import { describeIncompleteWalk, isComplete, walkPages, type Walk } from '../walk';
import { timestampValue } from './filters';

export interface GeneratedQuery extends Filters {
  limit: number;
  sort_order?: EventSortOrder;
}

/** Pages one generated walk may take; the page size is raised to fit, so every run stays cheap. */
const MAX_PAGES_PER_RUN = 8;
/** Share of the requests left that one property check may use. */
const BUDGET_SHARE = 0.25;

type Judge = (
  query: GeneratedQuery,
  walk: Walk,
  expected: ReturnType<typeof expectedEvents>,
  context: CheckContext,
) => Finding | undefined | Promise<Finding | undefined>;

function propertyCheck(
  id: string,
  level: 'seed' | 'reference',
  title: string,
  qualifiedKinds: boolean,
  judges: Judge[],
  requires: OptionalOperation[] = [],
): Check {
  return {
    id,
    level,
    title,
    run: (context) => whenAvailable(context, requires, () => runProperty(context, qualifiedKinds, judges)),
  };
}

async function runProperty(context: CheckContext, qualifiedKinds: boolean, judges: Judge[]): Promise<CheckOutcome> {
  const { seed, runs, propertyTimeLimitMs } = context.settings;
  const deadline = Date.now() + propertyTimeLimitMs;
  const floor = context.requestsLeft() - Math.floor(context.requestsLeft() * BUDGET_SHARE);
  let judged = 0;
  let stoppedEarly = false;
  let lastFailure: Finding | undefined;

  const property = fc.asyncProperty(queryArbitrary(context, qualifiedKinds), async (query) => {
    if (Date.now() > deadline || context.requestsLeft() <= floor) {
      stoppedEarly = true;
      return true;
    }
    const expected = expectedEvents(context.data.events, query, query.sort_order);
    const walk = await walkPages(context.search, query, MAX_PAGES_PER_RUN + 2);
    if (walk.failure?.reason === 'budget') return true;
    judged += 1;
    for (const judge of judges) {
      const finding = await judge(query, walk, expected, context);
      if (finding) {
        lastFailure = finding;
        return false;
      }
    }
    return true;
  });
  const details = await fc.check(property, { seed, numRuns: runs });
  const replay = `fast-check seed ${seed}: replay with --seed ${seed} --runs ${runs}`;
  if (details.failed && lastFailure) {
    // The last failure recorded is the shrunk counterexample's: shrinking only moves to failing inputs.
    const query = details.counterexample?.[0];
    return failed(
      [{ ...lastFailure, message: `${lastFailure.message} [query: ${query ? describeFilters(query) : '?'}]` }],
      `${replay} (path ${details.counterexamplePath})`,
    );
  }
  if (details.failed) return failed([{ message: `the property threw: ${String(details.errorInstance)}` }], replay);
  if (judged === 0) return skipped(`no generated query could be judged within the time and request bounds; ${replay}`);
  return passed(`${judged} generated queries judged${stoppedEarly ? ' (stopped early at the time or request bound)' : ''}; ${replay}`);
}

/** Filters drawn from the data; about half of the runs leave each filter out. */
function queryArbitrary(context: CheckContext, qualifiedKinds: boolean): fc.Arbitrary<GeneratedQuery> {
  const { kinds, words, timed, events } = context.data;
  const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 2 });
  const kindValues = qualifiedKinds ? kinds.flatMap((kind) => (isContractKind(kind) ? [kind, classPathOf(kind)] : [kind])) : kinds;
  const instant = timed.length > 0 ? maybe(fc.nat({ max: timed.length - 1 }).map((index) => timestampValue(timed[index]!))) : fc.constant(undefined);
  const { pageSize, sources, sortOrders } = context.contract;
  const body =
    words.length > 0 ? maybe(fc.constantFrom(...words).chain((word) => fc.constantFrom(word, word.toUpperCase()))) : fc.constant(undefined);
  return fc
    .record({
      kind: kindValues.length > 0 ? maybe(fc.constantFrom(...kindValues)) : fc.constant(undefined),
      source: sources.length > 0 ? maybe(fc.constantFrom(...sources)) : fc.constant(undefined),
      body,
      timestamp__gte: instant,
      timestamp__lt: instant,
      limit: fc.integer({ min: pageSize.minimum, max: pageSize.maximum }),
      sort_order: fc.constantFrom(undefined, ...(sortOrders as EventSortOrder[])),
    })
    .map((query) => withoutUndefined(fitLimit(query, expectedEvents(events, query).length, pageSize.maximum)));
}

/** Raises the page size so the walk fits in MAX_PAGES_PER_RUN pages. */
function fitLimit(query: GeneratedQuery, expectedCount: number, largest: number): GeneratedQuery {
  return { ...query, limit: Math.min(largest, Math.max(query.limit, Math.ceil(expectedCount / (MAX_PAGES_PER_RUN - 1)))) };
}

function withoutUndefined(query: GeneratedQuery): GeneratedQuery {
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as unknown as GeneratedQuery;
}

function evidence(walk: Walk): { exchange?: Exchange } {
  const page = walk.stoppedAt ?? walk.pages[walk.pages.length - 1]?.exchange;
  return page ? { exchange: page } : {};
}

// ---- judges -----------------------------------------------------------------------------

const walkEnds: Judge = (_query, walk) =>
  isComplete(walk) && walk.end !== 'empty-string'
    ? undefined
    : {
        message: `the walk did not end properly: ${describeIncompleteWalk(walk) ?? 'the last next_page_id is ""'}`,
        expected: 'a last page with next_page_id null',
        ...evidence(walk),
      };

const eachOnce: Judge = (_query, walk) => {
  const duplicates = duplicatesOf(walk.events);
  return duplicates.length === 0
    ? undefined
    : { message: `returned more than once: ${listEvents(duplicates, 3)}`, expected: 'each event once', ...evidence(walk) };
};

const soundAndComplete: Judge = (_query, walk, expected) => {
  const { missing, unexpected } = setDifference(walk.events, expected);
  if (missing.length + unexpected.length === 0) return undefined;
  return {
    message: `${missing.length} matching events missing (${listEvents(missing, 3)}), ${unexpected.length} returned that do not match (${listEvents(unexpected, 3)})`,
    expected: `the ${expected.length} events that satisfy every filter`,
    ...evidence(walk),
  };
};

const ordered: Judge = (query, walk) => {
  const violation = firstOrderViolation(walk.events, query.sort_order ?? 'TIMESTAMP');
  return violation
    ? {
        message: `${describeEvent(violation.after)} comes after ${describeEvent(violation.before)}`,
        expected: `${query.sort_order ?? 'TIMESTAMP'} order`,
        ...evidence(walk),
      }
    : undefined;
};

const exactSequence: Judge = (_query, walk, expected) => {
  const at = firstMismatch(walk.events, expected);
  if (at === undefined) return undefined;
  const got = walk.events[at];
  const want = expected[at];
  return {
    message: `event ${at + 1} is ${got ? describeEvent(got) : 'missing'}`,
    expected: want ? describeEvent(want) : 'no more events',
    ...evidence(walk),
  };
};

const fullPages: Judge = (query, walk) => {
  const short = walk.pages.slice(0, -1).findIndex((page) => page.items.length !== query.limit);
  return short < 0
    ? undefined
    : {
        message: `page ${short + 1} has ${walk.pages[short]!.items.length} events but is not the last`,
        expected: `${query.limit} on every page but the last`,
        exchange: walk.pages[short]!.exchange,
      };
};

const keyPresent: Judge = (_query, walk) => {
  const page = walk.pages.find((candidate) => !candidate.hasNextPageIdKey);
  return page ? { message: 'a page has no next_page_id key', expected: 'the key on every page', exchange: page.exchange } : undefined;
};

const countMatches: Judge = async (query, walk, _expected, context) => {
  if (!isComplete(walk)) return undefined;
  const { kind, source, body, timestamp__gte, timestamp__lt } = query;
  const answer = await countOf(context, { kind, source, body, timestamp__gte, timestamp__lt });
  if (!answer.ok) return 'finding' in answer ? answer.finding : undefined;
  return answer.count === walk.events.length
    ? undefined
    : {
        message: `count is ${answer.count}, the walk returned ${walk.events.length} events`,
        expected: String(walk.events.length),
        exchange: answer.exchange,
      };
};

export function propertyChecks(): Check[] {
  return [
    propertyCheck(
      'properties.search',
      'seed',
      'generated filter, page-size and sort combinations: every walk ends, returns each matching event once and nothing else, in timestamp order',
      false,
      [walkEnds, eachOnce, soundAndComplete, ordered],
    ),
  ];
}

export function referencePropertyChecks(): Check[] {
  return [
    propertyCheck(
      'ref.properties.search',
      'reference',
      'generated combinations, qualified kinds included: the exact sequence the reference semantics predict, full pages, next_page_id always present',
      true,
      [walkEnds, exactSequence, fullPages, keyPresent],
    ),
    propertyCheck(
      'ref.properties.count',
      'reference',
      'generated filter combinations, qualified kinds included: count equals the number of events the full walk returns',
      true,
      [walkEnds, countMatches],
      ['count'],
    ),
  ];
}
