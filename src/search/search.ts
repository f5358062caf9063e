import type { EventKind, EventSortOrder } from '../contract';
import { EventIndex, IndexedEvent, firstAtOrAfter, lowerBound } from './event-index';
import type { Micros } from './timestamps';

/** Validated filters, shared by search and count: every value already parsed, `body` already lower-cased. */
export interface EventFilters {
  /** `null` when the filter named no known kind: nothing matches. */
  kind?: EventKind | null;
  source?: string;
  body?: string;
  gte?: Micros;
  lt?: Micros;
}

/** A validated search: the filters, the order and the page wanted. */
export interface SearchCriteria extends EventFilters {
  sortOrder: EventSortOrder;
  pageId?: string;
  limit: number;
}

export interface SearchPage<Payload> {
  events: IndexedEvent<Payload>[];
  nextPageId: string | null;
}

/**
 * One page of a search (seed section 4.1, docs/reference-behaviour.md, "Search"). The walk starts on the
 * smallest list that every match must be in (the kind's, the source's, or message events
 * for `body`), narrowed to the timestamp window and the cursor by binary search, so a
 * page costs O(log n + events skipped by the remaining filters), not a pass from the start.
 * `nextPageId` is the id of the first match that did not fit.
 */
export function searchEvents<Payload>(index: EventIndex<Payload>, criteria: SearchCriteria): SearchPage<Payload> {
  if (criteria.kind === null) return { events: [], nextPageId: null };
  const list = candidateList(index, criteria);
  const window = timeWindow(list, criteria);
  const matches = (event: IndexedEvent<Payload>) => satisfies(event, criteria);
  const cursor = usableCursor(index, criteria, matches);
  const descending = criteria.sortOrder === 'TIMESTAMP_DESC';

  const events: IndexedEvent<Payload>[] = [];
  if (!descending) {
    const start = cursor ? lowerBound(list, cursor) : window.start;
    for (let i = start; i < window.end; i++) {
      const event = list[i]!;
      if (!matches(event)) continue;
      if (events.length === criteria.limit) return { events, nextPageId: event.id };
      events.push(event);
    }
  } else {
    const end = cursor ? upperBound(list, cursor) : window.end;
    for (let i = end - 1; i >= window.start; i--) {
      const event = list[i]!;
      if (!matches(event)) continue;
      if (events.length === criteria.limit) return { events, nextPageId: event.id };
      events.push(event);
    }
  }
  return { events, nextPageId: null };
}

/**
 * How many events a full search walk with these filters returns: the matches on the
 * smallest candidate list within the time window, read from the index alone.
 */
export function countEvents(index: EventIndex<unknown>, filters: EventFilters): number {
  if (filters.kind === null) return 0;
  const list = candidateList(index, filters);
  const window = timeWindow(list, filters);
  if (isOnlyTimeWindow(filters)) return window.end - window.start;
  let count = 0;
  for (let i = window.start; i < window.end; i++) if (satisfies(list[i]!, filters)) count++;
  return count;
}

function isOnlyTimeWindow(filters: EventFilters): boolean {
  return filters.kind === undefined && filters.source === undefined && filters.body === undefined;
}

/**
 * The event a page starts at. Like the reference, which looks `page_id` up among the
 * events that pass the filters, a cursor that is unknown or filtered out restarts the
 * walk from the first event of the order.
 */
function usableCursor<Payload>(
  index: EventIndex<Payload>,
  criteria: SearchCriteria,
  matches: (event: IndexedEvent<Payload>) => boolean,
): IndexedEvent<Payload> | undefined {
  if (criteria.pageId === undefined) return undefined;
  const cursor = index.findById(criteria.pageId);
  if (!cursor || !matches(cursor) || !inWindow(cursor, criteria)) return undefined;
  return cursor;
}

function inWindow(event: IndexedEvent<unknown>, criteria: EventFilters): boolean {
  const micros = event.micros ?? -Infinity;
  return (criteria.gte === undefined || micros >= criteria.gte) && (criteria.lt === undefined || micros < criteria.lt);
}

function candidateList<Payload>(index: EventIndex<Payload>, criteria: EventFilters): readonly IndexedEvent<Payload>[] {
  const lists: (readonly IndexedEvent<Payload>[])[] = [index.ordered];
  if (criteria.kind) lists.push(index.byKind.get(criteria.kind) ?? []);
  if (criteria.body !== undefined) lists.push(index.byKind.get('MessageEvent') ?? []);
  if (criteria.source !== undefined) lists.push(index.bySource.get(criteria.source) ?? []);
  return lists.reduce((smallest, list) => (list.length < smallest.length ? list : smallest));
}

function timeWindow(list: readonly IndexedEvent<unknown>[], criteria: EventFilters): { start: number; end: number } {
  const start = criteria.gte === undefined ? 0 : firstAtOrAfter(list, criteria.gte);
  const end = criteria.lt === undefined ? list.length : firstAtOrAfter(list, criteria.lt);
  return { start, end: Math.max(start, end) };
}

function satisfies(event: IndexedEvent<unknown>, criteria: EventFilters): boolean {
  if (criteria.kind !== undefined && event.kind !== criteria.kind) return false;
  if (criteria.source !== undefined && event.source !== criteria.source) return false;
  if (criteria.body !== undefined && (event.text === undefined || !event.text.includes(criteria.body))) return false;
  return true;
}

/** First index whose event is after `probe` in search order (positions are unique). */
function upperBound(list: readonly IndexedEvent<unknown>[], probe: IndexedEvent<unknown>): number {
  const at = lowerBound(list, probe);
  return list[at] === probe ? at + 1 : at;
}
