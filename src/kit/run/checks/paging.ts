/**
 * Paging (seed section 4.1 rule 4, docs/reference-behaviour.md, "Search"): walking every page returns
 * every event exactly once, ends, and does not depend on the page size; a cursor replays.
 * The walks are shared: the largest page is the discovery walk, limit 7 puts seams everywhere,
 * limit 1 makes every event a seam (skipped when the budget cannot afford it).
 */
import { randomUUID } from 'node:crypto';
import type { CheckContext } from '../context';
import { MAX_PAGES_PER_WALK, pagesFor } from '../context';
import { duplicatesOf, firstMismatch, listEvents } from '../expectations';
import { describeEvent } from '../observed-event';
import { count, skipped, verdict, type Check, type Finding } from '../types';
import { describeIncompleteWalk, isComplete, type Walk } from '../walk';
import { exchangeField, outcomeOfFailure, statusAndBody, unfinishedWalk } from './support';

export const SEAM_PAGE_SIZE = 7;

interface NamedWalk {
  label: string;
  walk: Walk;
  /** The kit stopped it at its page cap on purpose, so only what it saw can be judged. */
  truncated: boolean;
}

async function pagingWalks(context: CheckContext): Promise<NamedWalk[]> {
  const count = context.data.events.length;
  const walks: NamedWalk[] = [
    { label: `limit=${context.contract.pageSize.maximum}`, walk: await context.walk({ limit: context.contract.pageSize.maximum }), truncated: false },
    { label: `limit=${SEAM_PAGE_SIZE}`, walk: await context.walk({ limit: SEAM_PAGE_SIZE }), truncated: false },
  ];
  // One request per event: only when the budget leaves room for the other checks.
  if (context.requestsLeft() > Math.min(count, MAX_PAGES_PER_WALK) + 400) {
    const walk = await context.walk({ limit: 1 });
    walks.push({ label: 'limit=1', walk, truncated: walk.end === 'page-cap' && pagesFor(count, 1) === MAX_PAGES_PER_WALK });
  }
  return walks;
}

const exactlyOnce: Check = {
  id: 'paging.exactly-once',
  level: 'seed',
  title: 'walking all pages returns every event exactly once, for the largest page size the contract allows, 7 and 1',
  async run(context) {
    const walks = await pagingWalks(context);
    const universe = new Map(context.data.events.map((event) => [event.key, event]));
    for (const { walk } of walks) for (const event of walk.events) if (!universe.has(event.key)) universe.set(event.key, event);
    const findings: Finding[] = [];
    for (const { label, walk, truncated } of walks) {
      findings.push(...duplicateFindings(label, walk));
      if (!isComplete(walk) || truncated) continue;
      const seen = new Set(walk.events.map((event) => event.key));
      const missing = [...universe.values()].filter((event) => !seen.has(event.key));
      if (missing.length > 0) {
        findings.push({
          message: `the walk with ${label} never returned ${count(missing.length, 'event')} that other walks did: ${listEvents(missing)}`,
          expected: 'every event of the conversation on exactly one page',
          ...exchangeField(pageBefore(walk, missing[0]!.key, context)),
        });
      }
    }
    return verdict(findings, `${walks.map(({ label, walk }) => `${label}: ${walk.events.length} events on ${walk.pages.length} pages`).join('; ')}`);
  },
};

function duplicateFindings(label: string, walk: Walk): Finding[] {
  const duplicates = duplicatesOf(walk.events);
  if (duplicates.length === 0) return [];
  const first = duplicates[0]!;
  const pages = walk.pages.flatMap((page, index) => (page.items.some((event) => event.key === first.key) ? [index + 1] : []));
  return [
    {
      message: `the walk with ${label} returned ${count(duplicates.length, 'event')} twice, first ${describeEvent(first)} on pages ${pages.join(' and ')}${duplicates.length > 1 ? `; also ${listEvents(duplicates.slice(1), 3)}` : ''}`,
      expected: 'each event on exactly one page',
      ...exchangeField(walk.pages[(pages[1] ?? pages[0] ?? 1) - 1]?.exchange),
    },
  ];
}

/** The page where the event just before a missing one (in discovery order) was returned: where the gap is. */
function pageBefore(walk: Walk, missingKey: string, context: CheckContext) {
  const order = context.data.events.map((event) => event.key);
  const previous = order[order.indexOf(missingKey) - 1];
  const page = walk.pages.find((candidate) => candidate.items.some((event) => event.key === previous));
  return (page ?? walk.pages[0])?.exchange;
}

const noCycles: Check = {
  id: 'paging.no-cycles',
  level: 'seed',
  title: 'a walk reaches its last page: no next_page_id is handed out twice',
  async run(context) {
    const walks = [
      ...(await pagingWalks(context)),
      {
        label: `limit=${SEAM_PAGE_SIZE}, TIMESTAMP_DESC`,
        walk: await context.walk({ limit: SEAM_PAGE_SIZE, sort_order: 'TIMESTAMP_DESC' }),
        truncated: false,
      },
    ];
    const findings: Finding[] = [];
    for (const { label, walk, truncated } of walks) {
      if (walk.end === 'request-failed' && walk.failure?.reason === 'budget') return outcomeOfFailure(walk.failure, label);
      if (walk.end !== 'cycle' && !(walk.end === 'page-cap' && !truncated)) continue;
      findings.push({
        message: `the walk with ${label}: ${describeIncompleteWalk(walk)}`,
        expected: 'a last page after at most one page per event',
        ...exchangeField(walk.pages[walk.pages.length - 1]?.exchange),
      });
    }
    return verdict(findings);
  },
};

const endsWithNull: Check = {
  id: 'paging.ends-with-null',
  level: 'seed',
  title: 'the last page signals the end with next_page_id null (not "")',
  async run(context) {
    const findings: Finding[] = [];
    for (const { label, walk } of await pagingWalks(context)) {
      const last = walk.pages[walk.pages.length - 1];
      if (walk.end === 'empty-string' || walk.end === 'bad-cursor') {
        findings.push({
          message: `the last page of the walk with ${label} has next_page_id ${JSON.stringify(last?.nextPageId)}; a client that loops while next_page_id is not null would never stop`,
          expected: 'next_page_id: null on the last page',
          ...exchangeField(last?.exchange),
        });
      }
    }
    return verdict(findings);
  },
};

const sameAcrossLimits: Check = {
  id: 'paging.same-across-limits',
  level: 'seed',
  title: 'the concatenated pages are identical for limits 1, 7 and the largest',
  async run(context) {
    const walks = await pagingWalks(context);
    const [reference, ...others] = walks;
    if (!reference) return skipped('no walks');
    const unfinished = unfinishedWalk(reference.walk, `the walk with ${reference.label}`);
    if (unfinished) return unfinished;
    const findings: Finding[] = [];
    for (const { label, walk, truncated } of others) {
      if (!isComplete(walk) && !truncated) continue; // paging.no-cycles reports it
      const expected = truncated ? reference.walk.events.slice(0, walk.events.length) : reference.walk.events;
      const at = firstMismatch(walk.events, expected);
      if (at === undefined) continue;
      const got = walk.events[at];
      const want = expected[at];
      findings.push({
        message: `event ${at + 1} of the walk with ${label} is ${got ? describeEvent(got) : 'missing (the walk ended)'}, but with ${reference.label} it is ${want ? describeEvent(want) : 'past the end'}`,
        expected: 'the same events in the same order whatever the page size',
        ...exchangeField(walk.pages[pageNumberOf(walk, at)]?.exchange),
      });
    }
    const shown = walks.map(({ label, walk, truncated }) => `${label}${truncated ? ` (first ${walk.events.length} events)` : ''}`).join(', ');
    return verdict(findings, `compared ${shown}`);
  },
};

function pageNumberOf(walk: Walk, eventIndex: number): number {
  let end = 0;
  for (let page = 0; page < walk.pages.length; page++) {
    end += walk.pages[page]!.items.length;
    if (eventIndex < end) return page;
  }
  return walk.pages.length - 1;
}

const replayPageId: Check = {
  id: 'paging.replay-page-id',
  level: 'seed',
  title: 'a page_id requested again gives the same page, with and without filters',
  async run(context) {
    const kind = context.data.kinds[0];
    const queries = [{ limit: SEAM_PAGE_SIZE }, ...(kind ? [{ limit: 3, kind }] : [])];
    const findings: Finding[] = [];
    let replayed = 0;
    for (const query of queries) {
      const walk = await context.walk(query);
      const cursored = walk.pages.filter((page) => page.pageId !== undefined);
      const page = cursored[Math.floor(cursored.length / 2)];
      if (!page) continue;
      const outcome = await context.search({ ...query, page_id: page.pageId });
      if (!outcome.ok) return outcomeOfFailure(outcome.failure, 'the replayed request');
      replayed += 1;
      const again = outcome.page;
      const sameItems = again !== undefined && JSON.stringify(again.items.map(keyOf)) === JSON.stringify(page.items.map((event) => event.key));
      if (!again || !sameItems || again.nextPageId !== page.nextPageId) {
        findings.push({
          message: `page_id ${JSON.stringify(page.pageId)} gave a different page the second time: ${statusAndBody(outcome.exchange)}`,
          expected: `the same ${page.items.length} events and next_page_id ${JSON.stringify(page.nextPageId)}`,
          exchange: outcome.exchange,
        });
      }
    }
    if (replayed === 0) return skipped('the conversation fits on one page of 7; there is no page_id to replay');
    return verdict(findings);
  },
};

function keyOf(item: unknown): string {
  const id = (item as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : JSON.stringify(item);
}

const limitRespected: Check = {
  id: 'paging.limit-respected',
  level: 'seed',
  title: "no page holds more events than limit, and without limit no more than limit's default",
  async run(context) {
    const findings: Finding[] = [];
    for (const { label, walk } of await pagingWalks(context)) {
      const limit = walk.query.limit ?? context.contract.pageSize.default;
      const over = walk.pages.findIndex((page) => page.items.length > limit);
      if (over >= 0)
        findings.push({
          message: `page ${over + 1} of the walk with ${label} has ${walk.pages[over]!.items.length} events`,
          expected: `at most ${limit}`,
          exchange: walk.pages[over]!.exchange,
        });
    }
    const outcome = await context.search({});
    if (!outcome.ok) return outcomeOfFailure(outcome.failure, 'the request without limit');
    const count = outcome.page?.items.length ?? 0;
    const pageSizeDefault = context.contract.pageSize.default;
    if (count > pageSizeDefault)
      findings.push({
        message: `without limit, the page has ${count} events`,
        expected: `at most ${pageSizeDefault} (limit's default)`,
        exchange: outcome.exchange,
      });
    return verdict(findings);
  },
};

// ---- reference level ------------------------------------------------------------------

const fullPages: Check = {
  id: 'ref.paging.full-pages',
  level: 'reference',
  title: 'every page but the last is full, and the last is not empty',
  async run(context) {
    const findings: Finding[] = [];
    for (const { label, walk } of await pagingWalks(context)) {
      if (!isComplete(walk)) continue;
      const limit = walk.query.limit ?? context.contract.pageSize.default;
      walk.pages.forEach((page, index) => {
        const isLast = index === walk.pages.length - 1;
        if (!isLast && page.items.length !== limit) {
          findings.push({
            message: `page ${index + 1} of ${walk.pages.length} of the walk with ${label} has ${page.items.length} events`,
            expected: `${limit}: next_page_id is the (limit+1)-th match`,
            exchange: page.exchange,
          });
        }
        if (isLast && page.items.length === 0 && walk.events.length > 0) {
          findings.push({
            message: `the last page of the walk with ${label} is empty`,
            expected: 'a next_page_id only when another match exists',
            exchange: page.exchange,
          });
        }
      });
    }
    return verdict(findings.slice(0, 5));
  },
};

const nextPageIdPresent: Check = {
  id: 'ref.paging.next-page-id-present',
  level: 'reference',
  title: 'every page has the next_page_id key; the last page has null',
  async run(context) {
    const findings: Finding[] = [];
    for (const { label, walk } of await pagingWalks(context)) {
      const page = walk.pages.find((candidate) => !candidate.hasNextPageIdKey);
      if (page)
        findings.push({
          message: `a page of the walk with ${label} has no next_page_id key`,
          expected: 'the key always present, null on the last page',
          exchange: page.exchange,
        });
    }
    return verdict(findings);
  },
};

const cursorIsNextEvent: Check = {
  id: 'ref.paging.cursor-is-next-event',
  level: 'reference',
  title: 'next_page_id is the id of the first event of the next page',
  async run(context) {
    const walk = await context.walk({ limit: SEAM_PAGE_SIZE });
    const findings: Finding[] = [];
    walk.pages.slice(0, -1).forEach((page, index) => {
      const next = walk.pages[index + 1]!;
      const firstId = next.items[0]?.id;
      if (page.nextPageId !== firstId && findings.length < 3) {
        findings.push({
          message: `page ${index + 1} has next_page_id ${JSON.stringify(page.nextPageId)} but page ${index + 2} starts with ${JSON.stringify(firstId)}`,
          expected: 'the id of the first match that did not fit',
          exchange: page.exchange,
        });
      }
    });
    return verdict(findings);
  },
};

const unknownPageIdRestarts: Check = {
  id: 'ref.paging.unknown-page-id-restarts',
  level: 'reference',
  title: 'an unknown page_id restarts from the first event of the order (the last, for TIMESTAMP_DESC)',
  async run(context) {
    const findings: Finding[] = [];
    for (const sort_order of ['TIMESTAMP', 'TIMESTAMP_DESC'] as const) {
      const fresh = await context.search({ limit: 5, sort_order });
      const unknown = await context.search({ limit: 5, sort_order, page_id: `kit-unknown-${randomUUID()}` });
      if (!fresh.ok) return outcomeOfFailure(fresh.failure, 'the first page');
      if (!unknown.ok) return outcomeOfFailure(unknown.failure, 'the request with an unknown page_id');
      const want = JSON.stringify(fresh.page?.items.map(keyOf));
      if (unknown.exchange.status !== 200 || JSON.stringify(unknown.page?.items.map(keyOf)) !== want) {
        findings.push({
          message: `${sort_order} with an unknown page_id answered ${statusAndBody(unknown.exchange)}`,
          expected: 'the first page of that order',
          exchange: unknown.exchange,
        });
      }
    }
    return verdict(findings);
  },
};

export function pagingChecks(): Check[] {
  return [exactlyOnce, noCycles, endsWithNull, sameAcrossLimits, replayPageId, limitRespected];
}

export function referencePagingChecks(): Check[] {
  return [fullPages, nextPageIdPresent, cursorIsNextEvent, unknownPageIdRestarts];
}
