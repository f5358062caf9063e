/** Small pieces the checks share: turning failed requests and walks into outcomes, and set comparisons into findings. */
import type { EventSortOrder } from '../../../contract';
import { describeFilters, firstOrderViolation, listEvents, setDifference, duplicatesOf, type Filters } from '../expectations';
import { excerptOf, type GetResult, type RequestFailure, type Exchange } from '../../http';
import { describeEvent, type ObservedEvent } from '../observed-event';
import { count, failed, skipped, type CheckOutcome, type Finding } from '../types';
import { describeIncompleteWalk, isComplete, type Walk } from '../walk';

/** A request that got no response: a failure, except when the kit's own budget stopped it. */
export function outcomeOfFailure(failure: RequestFailure, what: string): CheckOutcome {
  if (failure.reason === 'budget') return skipped(`${what}: ${failure.message}; raise --max-requests to check it`);
  return failed([{ message: `${what}: ${failure.message} (${failure.url})` }]);
}

/** The exchange of a raw GET, or the outcome that ends the check when there was none. */
export function exchangeOrOutcome(result: GetResult, what: string): { exchange: Exchange } | { outcome: CheckOutcome } {
  return result.ok ? { exchange: result.exchange } : { outcome: outcomeOfFailure(result.failure, what) };
}

/** Undefined when the walk reached its last page; otherwise the outcome that ends the check. */
export function unfinishedWalk(walk: Walk, what: string): CheckOutcome | undefined {
  if (isComplete(walk)) return undefined;
  if (walk.failure?.reason === 'budget') return skipped(`${what}: ${walk.failure.message}; raise --max-requests to check it`);
  const last = walk.stoppedAt ?? walk.pages[walk.pages.length - 1]?.exchange;
  return failed([{ message: `${what}: the walk did not finish: ${describeIncompleteWalk(walk)}`, ...(last ? { exchange: last } : {}) }]);
}

/** The page of a walk an event first appears on, for pointing at evidence. */
export function pageShowing(walk: Walk, key: string): Exchange | undefined {
  return walk.pages.find((page) => page.items.some((event) => event.key === key))?.exchange ?? walk.pages[0]?.exchange;
}

/**
 * Sound and complete: every returned event matches the filters, and every matching event
 * is returned, each once. Compared as sets; order is the sort checks' concern.
 */
export function resultFindings(walk: Walk, expected: readonly ObservedEvent[], filters: Filters): Finding[] {
  const label = describeFilters(filters);
  const { missing, unexpected } = setDifference(walk.events, expected);
  const findings: Finding[] = [];
  const firstPage = walk.pages[0]?.exchange;
  const duplicates = duplicatesOf(walk.events);
  if (missing.length > 0) {
    findings.push({
      message: `${label}: ${missing.length} of ${count(expected.length, 'matching event')} missing: ${listEvents(missing)}`,
      expected: 'every event that satisfies every filter is returned',
      ...(firstPage ? { exchange: firstPage } : {}),
    });
  }
  if (unexpected.length > 0) {
    const first = unexpected[0]!;
    findings.push({
      message: `${label}: ${count(unexpected.length, 'returned event')} not satisfying the filters: ${listEvents(unexpected)}`,
      expected: 'only events that satisfy every filter',
      ...exchangeField(pageShowing(walk, first.key)),
    });
  }
  if (duplicates.length > 0) {
    findings.push({
      message: `${label}: returned more than once: ${listEvents(duplicates)}`,
      expected: 'each event once',
      ...exchangeField(pageShowing(walk, duplicates[0]!.key)),
    });
  }
  return findings;
}

/** A finding when events are out of timestamp order, naming the page seam when it is one. */
export function orderFindings(walk: Walk, sortOrder: EventSortOrder, label: string): Finding[] {
  const violation = firstOrderViolation(walk.events, sortOrder);
  if (!violation) return [];
  const seam = pageSeamAt(walk, violation.index);
  const direction = sortOrder === 'TIMESTAMP_DESC' ? 'descending' : 'ascending';
  return [
    {
      message: `${label}: ${describeEvent(violation.after)} comes after ${describeEvent(violation.before)}${seam ? `, across the seam between pages ${seam} and ${seam + 1}` : ''}`,
      expected: `timestamps ${direction} with microsecond precision, across pages too`,
      ...exchangeField(walk.pages[pageIndexOf(walk, violation.index)]?.exchange),
    },
  ];
}

/** 1-based number of the page that ends just before `eventIndex`, if the index starts a page. */
function pageSeamAt(walk: Walk, eventIndex: number): number | undefined {
  let start = 0;
  for (let page = 0; page < walk.pages.length; page++) {
    start += walk.pages[page]!.items.length;
    if (start === eventIndex) return page + 1;
    if (start > eventIndex) return undefined;
  }
  return undefined;
}

function pageIndexOf(walk: Walk, eventIndex: number): number {
  let end = 0;
  for (let page = 0; page < walk.pages.length; page++) {
    end += walk.pages[page]!.items.length;
    if (eventIndex < end) return page;
  }
  return Math.max(0, walk.pages.length - 1);
}

export function exchangeField(exchange: Exchange | undefined): { exchange?: Exchange } {
  return exchange ? { exchange } : {};
}

/** `200 {"items":...` for messages. */
export function statusAndBody(exchange: Exchange, max = 200): string {
  return `${exchange.status} ${excerptOf(exchange, max)}`;
}

/** The `detail` items of a 422 body, or undefined when the body is not that shape. */
export function validationItems(exchange: Exchange): Record<string, unknown>[] | undefined {
  if (!exchange.json.ok) return undefined;
  const detail = (exchange.json.value as { detail?: unknown } | null)?.detail;
  if (!Array.isArray(detail)) return undefined;
  return detail.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null);
}

/** Percent-encodes a query value the way a careful client does (so `+` stays a plus). */
export function encodeValue(value: string): string {
  return encodeURIComponent(value);
}
