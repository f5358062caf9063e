import type { EventKind } from '../contract';
import type { Micros } from './timestamps';

/** What the search needs to know of one stored event; `payload` is whatever the store serves. */
export interface IndexedEvent<Payload> {
  id: string;
  kind: EventKind;
  /** The stored source, or the kind's default when none is stored. */
  source: string | undefined;
  /** Undefined when the event has no readable timestamp; such events sort first. */
  micros: Micros | undefined;
  /** Storage position (the file's index); breaks ties between equal timestamps. */
  position: number;
  /** Lower-cased searchable text, for message events only. */
  text: string | undefined;
  payload: Payload;
}

type Entry = IndexedEvent<unknown>;

/** Orders by timestamp, then storage position. */
export function compareEvents(a: Entry, b: Entry): number {
  const at = a.micros ?? -Infinity;
  const bt = b.micros ?? -Infinity;
  return at - bt || a.position - b.position;
}

/**
 * A conversation's events in search order, with the same order kept per kind and per
 * source, so a filtered page starts with a binary search instead of a scan from the
 * first event. Appends in timestamp order cost O(1); an out-of-order event is inserted.
 */
export class EventIndex<Payload> {
  readonly ordered: IndexedEvent<Payload>[] = [];
  readonly byKind = new Map<EventKind, IndexedEvent<Payload>[]>();
  readonly bySource = new Map<string, IndexedEvent<Payload>[]>();
  private readonly byId = new Map<string, IndexedEvent<Payload>>();
  private readonly byPosition = new Map<number, IndexedEvent<Payload>>();

  get size(): number {
    return this.ordered.length;
  }

  findById(id: string): IndexedEvent<Payload> | undefined {
    return this.byId.get(id);
  }

  hasPosition(position: number): boolean {
    return this.byPosition.has(position);
  }

  /** Adds an event, replacing the one stored at the same position. */
  upsert(event: IndexedEvent<Payload>): void {
    this.remove(event.position);
    insertSorted(this.ordered, event);
    insertSorted(listFor(this.byKind, event.kind), event);
    if (event.source !== undefined) insertSorted(listFor(this.bySource, event.source), event);
    this.byId.set(event.id, event);
    this.byPosition.set(event.position, event);
  }

  /** Removes the event stored at a position, if any. */
  remove(position: number): void {
    const event = this.byPosition.get(position);
    if (!event) return;
    removeSorted(this.ordered, event);
    removeSorted(this.byKind.get(event.kind) ?? [], event);
    if (event.source !== undefined) removeSorted(this.bySource.get(event.source) ?? [], event);
    if (this.byId.get(event.id) === event) this.byId.delete(event.id);
    this.byPosition.delete(position);
  }
}

function listFor<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** First index whose event is not before `probe` in search order. */
export function lowerBound(list: readonly Entry[], probe: Entry): number {
  return partitionPoint(list, (event) => compareEvents(event, probe) < 0);
}

/** First index whose timestamp is at or after `micros`. */
export function firstAtOrAfter(list: readonly Entry[], micros: Micros): number {
  return partitionPoint(list, (event) => (event.micros ?? -Infinity) < micros);
}

/** Binary search in a list sorted so that every event `isBefore` comes first: the first index that is not. */
function partitionPoint(list: readonly Entry[], isBefore: (event: Entry) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isBefore(list[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertSorted(list: Entry[], event: Entry): void {
  const last = list[list.length - 1];
  if (!last || compareEvents(last, event) <= 0) list.push(event);
  else list.splice(lowerBound(list, event), 0, event);
}

function removeSorted(list: Entry[], event: Entry): void {
  const at = lowerBound(list, event);
  if (list[at] === event) list.splice(at, 1);
}
