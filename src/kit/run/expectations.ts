/**
 * The kit's own model of search semantics, kept deliberately simple (a filter over a list)
 * and independent of src/search's indexed implementation, so that a bug there is not
 * copied into the oracle that judges it.
 */
import type { EventSortOrder } from '../../contract';
import { kindNamedBy } from './event-kinds';
import { instantOf } from './instants';
import { describeEvent, type ObservedEvent } from './observed-event';

export interface Filters {
  kind?: string;
  source?: string;
  body?: string;
  timestamp__gte?: string;
  timestamp__lt?: string;
}

/** Seed section 4.1 rule 3: an event is returned only if it satisfies every filter given. */
export function matchesFilters(event: ObservedEvent, filters: Filters): boolean {
  if (filters.kind !== undefined && !kindMatches(event.kind, filters.kind)) return false;
  if (filters.source !== undefined && event.source !== filters.source) return false;
  // Only message events have text to search (docs/reference-behaviour.md, "Search").
  if (filters.body !== undefined && (event.text === undefined || !event.text.includes(filters.body.toLowerCase()))) return false;
  // Events without a readable timestamp sort first (before any instant), as our server does.
  const micros = event.micros ?? -Infinity;
  if (filters.timestamp__gte !== undefined && !(micros >= filterInstant(filters.timestamp__gte))) return false;
  if (filters.timestamp__lt !== undefined && !(micros < filterInstant(filters.timestamp__lt))) return false;
  return true;
}

/** A kind filter names a kind by short name or, as the reference compares, by class path. */
function kindMatches(eventKind: string | undefined, value: string): boolean {
  const named = kindNamedBy(value);
  return named !== undefined ? eventKind === named : eventKind === value;
}

function filterInstant(value: string): number {
  const micros = instantOf(value);
  if (micros === undefined) throw new RangeError(`the kit built a timestamp filter it cannot read: ${JSON.stringify(value)}`);
  return micros;
}

/** The events a search should return, in order, given all events in ascending order. */
export function expectedEvents(ascending: readonly ObservedEvent[], filters: Filters, sortOrder: EventSortOrder = 'TIMESTAMP'): ObservedEvent[] {
  const kept = ascending.filter((event) => matchesFilters(event, filters));
  return sortOrder === 'TIMESTAMP_DESC' ? kept.reverse() : kept;
}

/** Events in search order: by timestamp, ties by storage position (docs/reference-behaviour.md, "Search"). */
export function inSearchOrder(events: readonly ObservedEvent[]): ObservedEvent[] {
  return [...events].sort((a, b) => (a.micros ?? -Infinity) - (b.micros ?? -Infinity) || a.position - b.position);
}

export interface SetDifference {
  missing: ObservedEvent[];
  unexpected: ObservedEvent[];
}

/** Which expected events a result lacks and which it has that it should not, by key. */
export function setDifference(actual: readonly ObservedEvent[], expected: readonly ObservedEvent[]): SetDifference {
  const actualKeys = new Set(actual.map((event) => event.key));
  const expectedKeys = new Set(expected.map((event) => event.key));
  return {
    missing: expected.filter((event) => !actualKeys.has(event.key)),
    unexpected: actual.filter((event) => !expectedKeys.has(event.key)),
  };
}

/** Every event seen more than once, once per repetition. */
export function duplicatesOf(events: readonly ObservedEvent[]): ObservedEvent[] {
  const seen = new Set<string>();
  return events.filter((event) => {
    if (seen.has(event.key)) return true;
    seen.add(event.key);
    return false;
  });
}

export interface OrderViolation {
  index: number;
  before: ObservedEvent;
  after: ObservedEvent;
}

/** The first adjacent pair out of timestamp order, compared with microsecond precision. */
export function firstOrderViolation(events: readonly ObservedEvent[], sortOrder: EventSortOrder): OrderViolation | undefined {
  const sign = sortOrder === 'TIMESTAMP_DESC' ? -1 : 1;
  for (let index = 1; index < events.length; index++) {
    const before = events[index - 1]!;
    const after = events[index]!;
    if (before.micros === undefined || after.micros === undefined) continue;
    if (sign * (after.micros - before.micros) < 0) return { index, before, after };
  }
  return undefined;
}

/** The first index where two key sequences differ, or undefined when they are equal. */
export function firstMismatch(actual: readonly ObservedEvent[], expected: readonly ObservedEvent[]): number | undefined {
  const length = Math.max(actual.length, expected.length);
  for (let index = 0; index < length; index++) {
    if (actual[index]?.key !== expected[index]?.key) return index;
  }
  return undefined;
}

/** Up to `max` events as labels, with a count of the rest. */
export function listEvents(events: readonly ObservedEvent[], max = 5): string {
  const shown = events.slice(0, max).map(describeEvent).join('; ');
  return events.length > max ? `${shown}; and ${events.length - max} more` : shown;
}

/** A readable form of a filter set, for messages: `kind=ActionEvent, source=agent`. */
export function describeFilters(filters: Filters & { sort_order?: string; limit?: number }): string {
  const parts = Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${String(value)}`);
  return parts.length > 0 ? parts.join(', ') : 'no filters';
}
