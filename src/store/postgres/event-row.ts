/**
 * What the events table holds for one event file, built with the directory store's own
 * decoding, so both stores serve and skip exactly the same files.
 */
import type { EventFileName } from '../directory/load/event-file-name';
import { decodeEventFile } from '../stored-event/index-fields';
import { storedSortMicros } from './sort-micros';
import { nullableTextColumn, textColumn } from './text-column';

export interface EventRow {
  position: number;
  fileName: string;
  eventId: string;
  kind: string;
  source: string | null;
  sortMicros: string;
  bodyText: string | null;
  /** A copy of the trimmed file bytes, owned by the row. */
  payload: Buffer;
}

export type RowDecode = { ok: true; row: EventRow } | { ok: false; reason: string };

/** Decodes an event file's bytes (which may be a view of a scratch buffer) into its row. */
export function eventRowOf(bytes: Buffer, file: EventFileName): RowDecode {
  const decoded = decodeEventFile(bytes, file, 'contract');
  if (!decoded.ok) return decoded;
  const { event } = decoded;
  return {
    ok: true,
    row: {
      position: event.position,
      fileName: textColumn(file.name),
      eventId: textColumn(event.id),
      kind: event.kind,
      source: nullableTextColumn(event.source ?? null),
      sortMicros: storedSortMicros(event.micros),
      bodyText: nullableTextColumn(event.text ?? null),
      payload: Buffer.from(event.payload),
    },
  };
}
