/**
 * What the checks need to know of an event a server returned, read without trusting it:
 * a server under test may send items that break the contract, and the kit must still
 * judge the rest.
 */
import { defaultSourceOf } from './event-kinds';
import { instantOf } from './instants';
import { searchableTextOf } from './searchable-text';

export interface ObservedEvent {
  /** The event id, or the item's JSON when it has none, so items can still be told apart. */
  key: string;
  id: string | undefined;
  kind: string | undefined;
  /** The stored source, or the kind's default (seed section 2.2). */
  source: string | undefined;
  timestamp: string | undefined;
  /**
   * Microseconds since the epoch; a naive timestamp is read as the kit's local time, which
   * is the server's when both run on one machine (see docs/contract-kit.md).
   */
  micros: number | undefined;
  /** The lower-cased text a `body` filter searches (docs/reference-behaviour.md, "Search"), for message events. */
  text: string | undefined;
  /** Storage position, when known (fixture manifests); otherwise the order it was seen in. */
  position: number;
  raw: unknown;
}

export function observeEvent(item: unknown, position: number): ObservedEvent {
  const record = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
  const id = typeof record['id'] === 'string' ? record['id'] : undefined;
  const kind = typeof record['kind'] === 'string' ? record['kind'] : undefined;
  const timestamp = typeof record['timestamp'] === 'string' ? record['timestamp'] : undefined;
  return {
    key: id ?? JSON.stringify(item),
    id,
    kind,
    source: effectiveSource(record, kind),
    timestamp,
    micros: instantOf(timestamp),
    text: searchableTextOf(record),
    position,
    raw: item,
  };
}

function effectiveSource(record: Record<string, unknown>, kind: string | undefined): string | undefined {
  if (typeof record['source'] === 'string') return record['source'];
  return kind === undefined ? undefined : defaultSourceOf(kind);
}

/** A short label for reports: `ActionEvent 1b2c...` plus its timestamp. */
export function describeEvent(event: ObservedEvent): string {
  const id = event.id ?? '(no id)';
  return `${event.kind ?? '(no kind)'} ${id}${event.timestamp ? ` at ${event.timestamp}` : ''}`;
}
