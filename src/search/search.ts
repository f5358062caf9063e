import type { EventKind, EventSortOrder } from '../contract';
import type { EventIndex } from './event-index';
import type { SlotList } from './slot-lists';
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

export interface SearchPage {
  /** The page's events' slots, in the page's order: `index.payloadsOf(slots)` hands over their payloads. */
  slots: number[];
  nextPageId: string | null;
}

/**
 * One page of a search (seed section 4.1, docs/reference-behaviour.md, "Search"). The walk starts on the
 * smallest list that every match must be in (the kind's, the source's, or message events
 * for `body`), narrowed to the timestamp window and the cursor by binary search, so a
 * page costs O(log n + events skipped by the remaining filters), not a pass from the start.
 * `nextPageId` is the id of the first match that did not fit.
 */
export function searchEvents(index: EventIndex<unknown>, criteria: SearchCriteria): SearchPage {
  if (criteria.kind === null) return { slots: [], nextPageId: null };
  const list = candidateList(index, criteria);
  const window = timeWindow(index, list, criteria);
  const matches = (slot: number) => satisfies(index, slot, criteria);
  const cursor = usableCursor(index, criteria, matches);
  const slots: number[] = [];
  if (criteria.sortOrder !== 'TIMESTAMP_DESC') {
    const start = cursor >= 0 ? index.placeOf(list, cursor) : window.start;
    for (let i = start; i < window.end; i++) {
      const slot = list.at(i);
      if (!matches(slot)) continue;
      if (slots.length === criteria.limit) return { slots, nextPageId: index.idAt(slot) };
      slots.push(slot);
    }
  } else {
    const end = cursor >= 0 ? afterPlaceOf(index, list, cursor) : window.end;
    for (let i = end - 1; i >= window.start; i--) {
      const slot = list.at(i);
      if (!matches(slot)) continue;
      if (slots.length === criteria.limit) return { slots, nextPageId: index.idAt(slot) };
      slots.push(slot);
    }
  }
  return { slots, nextPageId: null };
}

/**
 * How many events a full search walk with these filters returns: the length of the
 * candidate list's time window when no other filter applies (O(log n)), otherwise the
 * matches counted on that window.
 */
export function countEvents(index: EventIndex<unknown>, filters: EventFilters): number {
  if (filters.kind === null) return 0;
  const list = candidateList(index, filters);
  const window = timeWindow(index, list, filters);
  if (everyEventPasses(index, list, filters)) return window.end - window.start;
  let count = 0;
  for (let i = window.start; i < window.end; i++) if (satisfies(index, list.at(i), filters)) count++;
  return count;
}

/** Whether every event of `list` passes the filters other than the time window: `list` is the one filter's own list. */
function everyEventPasses(index: EventIndex<unknown>, list: SlotList, filters: EventFilters): boolean {
  if (filters.body !== undefined) return false;
  if (filters.kind && filters.source !== undefined) return false;
  if (filters.kind) return list === index.list({ kind: filters.kind });
  if (filters.source !== undefined) return list === index.list({ source: filters.source });
  return true;
}

/**
 * The slot a page starts at. Like the reference, which looks `page_id` up among the
 * events that pass the filters, a cursor that is unknown or filtered out restarts the
 * walk from the first event of the order.
 */
function usableCursor(index: EventIndex<unknown>, criteria: SearchCriteria, matches: (slot: number) => boolean): number {
  if (criteria.pageId === undefined) return -1;
  const cursor = index.slotOfId(criteria.pageId);
  if (cursor < 0 || !matches(cursor) || !inWindow(index.microsAt(cursor), criteria)) return -1;
  return cursor;
}

function inWindow(micros: Micros | undefined, criteria: EventFilters): boolean {
  const at = micros ?? -Infinity;
  return (criteria.gte === undefined || at >= criteria.gte) && (criteria.lt === undefined || at < criteria.lt);
}

export function candidateList(index: EventIndex<unknown>, criteria: EventFilters): SlotList {
  let smallest = index.list({ all: true });
  const consider = (list: SlotList) => {
    if (list.length < smallest.length) smallest = list;
  };
  if (criteria.kind) consider(index.list({ kind: criteria.kind }));
  if (criteria.body !== undefined) consider(index.list({ kind: 'MessageEvent' }));
  if (criteria.source !== undefined) consider(index.list({ source: criteria.source }));
  return smallest;
}

export function timeWindow(index: EventIndex<unknown>, list: SlotList, criteria: EventFilters): { start: number; end: number } {
  const start = criteria.gte === undefined ? 0 : index.firstAtOrAfter(list, criteria.gte);
  const end = criteria.lt === undefined ? list.length : index.firstAtOrAfter(list, criteria.lt);
  return { start, end: Math.max(start, end) };
}

export function satisfies(index: EventIndex<unknown>, slot: number, criteria: EventFilters): boolean {
  if (criteria.kind && !index.hasKind(slot, criteria.kind)) return false;
  if (criteria.source !== undefined && !index.hasSource(slot, criteria.source)) return false;
  if (criteria.body !== undefined) {
    const text = index.textAt(slot);
    if (text === undefined || !text.includes(criteria.body)) return false;
  }
  return true;
}

/** Index in `list` just after `slot`'s place: the walk backwards starts on the cursor itself. */
function afterPlaceOf(index: EventIndex<unknown>, list: SlotList, slot: number): number {
  const at = index.placeOf(list, slot);
  return at < list.length && list.at(at) === slot ? at + 1 : at;
}
