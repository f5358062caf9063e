/**
 * Every statement the store runs, with every value a bound parameter. Each is served by one
 * of the ordered indexes of migrations/0001-events.ts, or by the trigram index for `body`
 * (test/postgres/query-plans.test.ts proves it with EXPLAIN over 100k events).
 */
import type { EventFilters, SearchCriteria } from '../../search';
import { filterSortMicros } from './sort-micros';
import { textColumn } from './text-column';

export interface Statement {
  text: string;
  values: unknown[];
}

/** Collects bound values and hands out their `$n` placeholders. */
export class Parameters {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** The filter conditions, joined with AND (`true` when there are none). */
export function filterConditions(filters: EventFilters, parameters: Parameters): string {
  const conditions: string[] = [];
  // A `kind` value naming no known kind matches nothing.
  if (filters.kind === null) conditions.push('false');
  else if (filters.kind !== undefined) conditions.push(`kind = ${parameters.add(filters.kind)}`);
  if (filters.source !== undefined) conditions.push(`source = ${parameters.add(textColumn(filters.source))}`);
  if (filters.body !== undefined)
    conditions.push(`body_text IS NOT NULL AND body_text LIKE ${parameters.add(containsPattern(textColumn(filters.body)))}`);
  if (filters.gte !== undefined) conditions.push(`sort_micros >= ${parameters.add(filterSortMicros(filters.gte))}::bigint`);
  if (filters.lt !== undefined) conditions.push(`sort_micros < ${parameters.add(filterSortMicros(filters.lt))}::bigint`);
  return conditions.length === 0 ? 'true' : conditions.join(' AND ');
}

/** A LIKE pattern matching any text that contains `text` (LIKE's default escape is the backslash). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * How a statement returns the stored bytes. As `text` (convert_from) they travel as they
 * are: half the bytes of bytea's hex form, and no hex decoding in the driver. The database
 * refuses that for bytes that are not valid UTF-8; the store then asks again for `bytea`.
 */
export type PayloadForm = 'text' | 'bytea';

function payloadColumn(column: string, form: PayloadForm): string {
  return form === 'text' ? `convert_from(${column}, 'UTF8') AS payload` : `${column} AS payload`;
}

/** The key a page after a cursor starts at; null keys mean the cursor did not count (restart). */
export interface CursorKey {
  sortMicros: string | null;
  position: string | null;
}

function orderOf(criteria: SearchCriteria): 'ASC' | 'DESC' {
  return criteria.sortOrder === 'TIMESTAMP_DESC' ? 'DESC' : 'ASC';
}

/**
 * A first page: the conversation's row (none: no conversation) joined with up to `limit + 1`
 * events, the last of which only names the next page.
 */
export function firstPageStatement(hex: string, criteria: SearchCriteria, form: PayloadForm = 'text'): Statement {
  const parameters = new Parameters();
  const hexParameter = parameters.add(hex);
  const order = orderOf(criteria);
  const text = `SELECT c.id, e.event_id, e.ingest_seq, ${payloadColumn('e.payload', form)} FROM conversations c
    LEFT JOIN LATERAL (
      SELECT event_id, ingest_seq, payload, sort_micros, position FROM events
      WHERE conversation_id = c.id AND ${filterConditions(criteria, parameters)}
      ORDER BY sort_micros ${order}, position ${order} LIMIT ${parameters.add(criteria.limit + 1)}
    ) e ON true
    WHERE c.hex = ${hexParameter}
    ORDER BY e.sort_micros ${order}, e.position ${order}`;
  return { text, values: parameters.values };
}

/**
 * The conversation's row and the key of the event `criteria.pageId` names, when that event
 * passes the filters. Of two events sharing an id, the later file counts, as in the
 * directory store's index.
 */
export function cursorStatement(hex: string, criteria: SearchCriteria): Statement {
  const parameters = new Parameters();
  const hexParameter = parameters.add(hex);
  const idParameter = parameters.add(textColumn(criteria.pageId ?? ''));
  const text = `SELECT c.id, cursor.sort_micros::text, cursor.position::text FROM conversations c
    LEFT JOIN LATERAL (
      SELECT sort_micros, position FROM (
        SELECT * FROM events WHERE conversation_id = c.id AND event_id = ${idParameter} ORDER BY position DESC LIMIT 1
      ) named WHERE ${filterConditions(criteria, parameters)}
    ) cursor ON true
    WHERE c.hex = ${hexParameter}`;
  return { text, values: parameters.values };
}

/** A page from a cursor's event on (inclusive), or from the start when the key is null. */
export function pageFromCursorStatement(conversationId: number, cursor: CursorKey, criteria: SearchCriteria, form: PayloadForm = 'text'): Statement {
  const parameters = new Parameters();
  const order = orderOf(criteria);
  const conditions = [`conversation_id = ${parameters.add(conversationId)}`, filterConditions(criteria, parameters)];
  if (cursor.sortMicros !== null && cursor.position !== null) {
    const comparison = order === 'DESC' ? '<=' : '>=';
    conditions.push(
      `(sort_micros, position) ${comparison} (${parameters.add(cursor.sortMicros)}::bigint, ${parameters.add(cursor.position)}::bigint)`,
    );
  }
  const text = `SELECT event_id, ingest_seq, ${payloadColumn('payload', form)} FROM events WHERE ${conditions.join(' AND ')}
    ORDER BY sort_micros ${order}, position ${order} LIMIT ${parameters.add(criteria.limit + 1)}`;
  return { text, values: parameters.values };
}

/** How many events pass the filters; no row when there is no such conversation. */
export function countStatement(hex: string, filters: EventFilters): Statement {
  const parameters = new Parameters();
  const hexParameter = parameters.add(hex);
  const text = `SELECT (SELECT count(*) FROM events WHERE conversation_id = c.id AND ${filterConditions(filters, parameters)}) AS count
    FROM conversations c WHERE c.hex = ${hexParameter}`;
  return { text, values: parameters.values };
}

/** The event's bytes (null payload: no such event); no row when there is no such conversation. */
export function eventByIdStatement(hex: string, eventId: string, form: PayloadForm = 'text'): Statement {
  const text = `SELECT ${payloadColumn('e.payload', form)} FROM conversations c
    LEFT JOIN LATERAL (
      SELECT payload FROM events WHERE conversation_id = c.id AND event_id = $2 ORDER BY position DESC LIMIT 1
    ) e ON true
    WHERE c.hex = $1`;
  return { text, values: [hex, textColumn(eventId)] };
}

/**
 * The conversation's row, its highest append number (null: no events), and up to `limit`
 * events stored after `after`, in the order they were stored; no row when there is no such
 * conversation. The ingester writes a conversation's events one transaction at a time
 * (ingest.ts), so a number below one already seen is never committed later.
 */
export function appendedStatement(hex: string, after: string, limit: number, form: PayloadForm = 'text'): Statement {
  const text = `SELECT c.id, (SELECT max(ingest_seq) FROM events WHERE conversation_id = c.id)::text AS last_seq,
      e.event_id, e.ingest_seq::text, ${payloadColumn('e.payload', form)}
    FROM conversations c
    LEFT JOIN LATERAL (
      SELECT event_id, ingest_seq, payload FROM events WHERE conversation_id = c.id AND ingest_seq > $2::bigint ORDER BY ingest_seq LIMIT $3
    ) e ON true
    WHERE c.hex = $1
    ORDER BY e.ingest_seq`;
  return { text, values: [hex, after, limit] };
}
