/**
 * The order of the search across conversations: every event has a key (timestamp,
 * conversation id, position) that orders the union of all conversations, and a page is
 * the first matches after a key. Nothing depends on which other conversations exist, so a
 * page after a key is the same whatever was added before it.
 */
import type { EventSortOrder } from '../contract';
import type { EventFilters } from './search';
import type { Micros } from './timestamps';

/** Where an event stands in the order across conversations. `micros: null`: no timestamp, before every one. */
export interface EventKey {
  micros: Micros | null;
  /** The conversation id as 32 lower-case hex digits. */
  hex: string;
  position: number;
}

/** Ascending order of keys: timestamp (none first), conversation id, position. */
export function compareKeys(a: EventKey, b: EventKey): number {
  const at = a.micros ?? Number.NEGATIVE_INFINITY;
  const bt = b.micros ?? Number.NEGATIVE_INFINITY;
  if (at !== bt) return at < bt ? -1 : 1;
  if (a.hex !== b.hex) return a.hex < b.hex ? -1 : 1;
  return a.position - b.position;
}

/** Negative when `a` comes first in a walk of `order`. */
export function compareInOrder(order: EventSortOrder, a: EventKey, b: EventKey): number {
  return order === 'TIMESTAMP_DESC' ? compareKeys(b, a) : compareKeys(a, b);
}

/** A walk of the search across conversations: filters, order, and where the page starts. */
export interface CrossSearchCriteria extends EventFilters {
  sortOrder: EventSortOrder;
  limit: number;
  /**
   * The key of the last event the previous page returned: the page holds what comes after
   * it in walk order. Absent: from the start. After the last one returned, not at the
   * first one left out, so an event written between the two meanwhile is still to come.
   */
  after?: EventKey;
}
