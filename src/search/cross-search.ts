/**
 * The search across conversations, over one conversation's index at a time: every event
 * has a key (timestamp, conversation id, position) that orders the union of all
 * conversations, and a page is the first matches at or after a key. A store walks each
 * conversation from the key and merges (mergeHits); nothing depends on which other
 * conversations exist, so a page after a key is the same whatever was added before it.
 */
import type { EventSortOrder } from '../contract';
import type { EventIndex } from './event-index';
import { type EventFilters, candidateList, satisfies, timeWindow } from './search';
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

export interface KeyedSlot {
  slot: number;
  key: EventKey;
}

/**
 * Up to `limit` matches of one conversation in walk order, starting after `after` and ending
 * before `until` (a key no longer wanted: the merge already holds enough before it).
 * A binary search finds the start, so the walk costs what it collects plus what the
 * other filters skip, as a page of one conversation does.
 */
export function walkConversation(index: EventIndex<unknown>, hex: string, criteria: CrossSearchCriteria, until?: EventKey): KeyedSlot[] {
  if (criteria.kind === null || criteria.limit <= 0) return [];
  const list = candidateList(index, criteria);
  const window = timeWindow(index, list, criteria);
  const keyOf = (slot: number): EventKey => ({ micros: index.microsAt(slot) ?? null, hex, position: index.positionAt(slot) });
  const found: KeyedSlot[] = [];
  const order = criteria.sortOrder;
  if (order !== 'TIMESTAMP_DESC') {
    const after = criteria.after;
    const start = after
      ? Math.max(
          window.start,
          list.firstNotBefore((slot) => compareKeys(keyOf(slot), after) <= 0),
        )
      : window.start;
    for (let i = start; i < window.end && found.length < criteria.limit; i++) {
      const slot = list.at(i);
      const key = keyOf(slot);
      if (until && compareKeys(key, until) >= 0) break;
      if (satisfies(index, slot, criteria)) found.push({ slot, key });
    }
  } else {
    const after = criteria.after;
    const end = after
      ? Math.min(
          window.end,
          list.firstNotBefore((slot) => compareKeys(keyOf(slot), after) < 0),
        )
      : window.end;
    for (let i = end - 1; i >= window.start && found.length < criteria.limit; i--) {
      const slot = list.at(i);
      const key = keyOf(slot);
      if (until && compareKeys(key, until) <= 0) break;
      if (satisfies(index, slot, criteria)) found.push({ slot, key });
    }
  }
  return found;
}

/**
 * The best `keep` hits of a walk, in walk order: what a store merges the conversations'
 * walks into. It holds at most `keep` hits, so a page across any number of conversations
 * holds a page's worth of events.
 */
export class MergedHits<Hit extends { key: EventKey }> {
  private readonly hits: Hit[] = [];

  constructor(
    private readonly order: EventSortOrder,
    private readonly keep: number,
  ) {}

  /** The key past which no hit is wanted any more, once the merge is full. */
  get until(): EventKey | undefined {
    return this.hits.length === this.keep ? this.hits[this.keep - 1]!.key : undefined;
  }

  /** Whether a hit with this key would be kept: call before paying for the hit's bytes. */
  wants(key: EventKey): boolean {
    const until = this.until;
    return until === undefined || compareInOrder(this.order, key, until) < 0;
  }

  add(hit: Hit): void {
    if (!this.wants(hit.key)) return;
    let at = this.hits.length;
    while (at > 0 && compareInOrder(this.order, this.hits[at - 1]!.key, hit.key) > 0) at--;
    this.hits.splice(at, 0, hit);
    if (this.hits.length > this.keep) this.hits.pop();
  }

  /** The first `limit` hits, and, when more follow, the key of the last of them (the next page comes after it), or null. */
  page(limit: number): { hits: Hit[]; next: EventKey | null } {
    const hits = this.hits.slice(0, limit);
    return { hits, next: this.hits.length > limit ? hits[limit - 1]!.key : null };
  }
}
