/**
 * What the events table holds for one event file: the served bytes, decided by
 * stored-event/decide.ts, and the columns the statements filter and order by.
 */
import type { Event } from '../../contract';
import { DEFAULT_SOURCE, searchableEventText, searchableText, storedTimestampMicros } from '../../search';
import type { EventFileName } from '../files/event-file-name';
import type { ReadVersion } from '../files/event-file-reader';
import { storedSortMicros } from '../sql/sort-micros';
import { nullableTextColumn, textColumn } from '../sql/text-column';
import { decodeStoredEvent, type StoredEventMode } from '../stored-event/decide';

export interface EventRow {
  position: number;
  fileName: string;
  eventId: string;
  kind: string;
  source: string | null;
  sortMicros: string;
  /** The lower-cased message text `body` searches; message events only. */
  bodyText: string | null;
  /**
   * The lower-cased text of the whole event `text` searches, as UTF-8 bytes: it is as long
   * as the served bytes, and as bytes it moves with the decoding thread's answer instead of
   * being copied, and reaches the database without being encoded again.
   */
  searchText: Buffer;
  /** A copy of the served bytes, owned by the row. */
  payload: Buffer;
  /** The properties the contract does not list that the event had, comma-joined; null when none. */
  unlisted: string | null;
  /** The file's size and time taken before its bytes were read (-1 when unknown): the ingester reads it again when they change. */
  size: number;
  modifiedMs: number;
}

/** Where a row's bytes are kept: memory of its own, unless the caller has other (the decoding thread's chunks). */
export interface RowMemory {
  /** A copy of the served bytes, which may be a view of a scratch buffer or of the file's bytes. */
  bytes(served: Buffer): Buffer;
  /** The text as UTF-8. */
  text(text: string): Buffer;
}

const ownMemory: RowMemory = { bytes: (served) => Buffer.from(served), text: (text) => Buffer.from(text, 'utf8') };

/** Why a file is not served: a kind or value a newer server wrote, or a broken file (stored-event/decide.ts). */
export type Unserved = 'broken' | 'unknown-kind' | 'unknown-value';

export type RowDecode = { ok: true; row: EventRow } | { ok: false; because: Unserved; reason: string };

/**
 * Decodes an event file's bytes (which may be a view of a scratch buffer), read at
 * `version`, into its row, whose bytes are kept in `memory`.
 * Never throws: an event the decoding cannot handle (nested deeper than the call stack
 * reaches, say) is a file not served, with the reason.
 */
export function eventRowOf(
  bytes: Buffer,
  file: EventFileName,
  mode: StoredEventMode,
  version: ReadVersion | undefined,
  memory: RowMemory = ownMemory,
): RowDecode {
  try {
    const decision = decodeStoredEvent(bytes, mode);
    if (!decision.served) {
      const reason = decision.because === 'unknown-kind' ? decision.kind : decision.because === 'unknown-value' ? decision.value : decision.reason;
      return { ok: false, because: decision.because, reason };
    }
    return { ok: true, row: rowOf(decision.event, file, decision.payload, decision.unlisted, version, memory) };
  } catch (error) {
    return {
      ok: false,
      because: 'broken',
      reason: `cannot be decoded (${error instanceof RangeError ? 'nested too deeply' : (error as Error).message})`,
    };
  }
}

function rowOf(
  event: Event,
  file: EventFileName,
  served: Buffer,
  unlisted: readonly string[],
  version: ReadVersion | undefined,
  memory: RowMemory,
): EventRow {
  return {
    position: file.position,
    fileName: textColumn(file.name),
    // The contract makes `id` optional; the file name always carries one.
    eventId: textColumn(event.id ?? file.id),
    kind: event.kind,
    source: nullableTextColumn(event.source ?? DEFAULT_SOURCE[event.kind] ?? null),
    sortMicros: storedSortMicros(storedTimestampMicros(event.timestamp)),
    bodyText: nullableTextColumn(searchableText(event) ?? null),
    searchText: memory.text(textColumn(searchableEventText(event))),
    payload: memory.bytes(served),
    unlisted: unlisted.length === 0 ? null : unlisted.join(','),
    size: version?.size ?? -1,
    modifiedMs: version?.modifiedMs ?? -1,
  };
}
