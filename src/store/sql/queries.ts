/**
 * Every statement of the search semantics (seed section 4.1, docs/reference-behaviour.md,
 * "Search"), written once for SQLite and PostgreSQL: filters, the two orders, cursors,
 * counts, get-by-id, the search across conversations, exports and the socket's feed. Each
 * walks one of the ordered indexes of the schemas (sqlite/schema.ts, postgres/migrations/)
 * from the conversation's first key or a cursor's, or the trigram index for `body` and
 * `text` (test/postgres/query-plans.test.ts shows PostgreSQL's plans). Values are always
 * bound; the dialect (dialect.ts) writes what differs.
 */
import type { CrossSearchCriteria, EventFilters, EventKey, SearchCriteria } from '../../search';
import { type PayloadForm, type SqlDialect, type TextColumn, type TrigramUse, likeContains } from './dialect';
import { filterSortMicros, storedSortMicros } from './sort-micros';
import { Parameters, type Statement } from './statement';
import { textColumn } from './text-column';

/** The filter conditions on events `e`, joined with AND (`1 = 1` when there are none); `use` says how `body` and `text` use the trigram index. */
export function filterConditions(filters: EventFilters, parameters: Parameters, use?: TrigramUse): string {
  const conditions: string[] = [];
  // A `kind` value naming no known kind matches nothing.
  if (filters.kind === null) conditions.push('1 = 0');
  else if (filters.kind !== undefined) conditions.push(`e.kind = ${parameters.add(filters.kind)}`);
  if (filters.source !== undefined) conditions.push(`e.source = ${parameters.add(textColumn(filters.source))}`);
  if (filters.body !== undefined) conditions.push(`e.body_text IS NOT NULL AND ${containsCondition('body_text', filters.body, parameters, use)}`);
  if (filters.text !== undefined) conditions.push(containsCondition('search_text', filters.text, parameters, use));
  if (filters.gte !== undefined) conditions.push(`e.sort_micros >= ${parameters.bigint(filterSortMicros(filters.gte))}`);
  if (filters.lt !== undefined) conditions.push(`e.sort_micros < ${parameters.bigint(filterSortMicros(filters.lt))}`);
  return conditions.length === 0 ? '1 = 1' : conditions.join(' AND ');
}

function containsCondition(column: TextColumn, needle: string, parameters: Parameters, use: TrigramUse | undefined): string {
  return parameters.dialect.contains(column, textColumn(needle), (value) => parameters.add(value), use);
}

function orderOf(sortOrder: SearchCriteria['sortOrder']): 'ASC' | 'DESC' {
  return sortOrder === 'TIMESTAMP_DESC' ? 'DESC' : 'ASC';
}

/**
 * The conversation's row id, and why its directory could not be read when the ingester could
 * not; no row when there is no such conversation, or while its first reading is under way
 * (the ingester records the directory it read once it has read it all), so a conversation is
 * never served half-read, nor its appends announced before its start.
 */
export function conversationIdStatement(dialect: SqlDialect, hex: string): Statement {
  const parameters = new Parameters(dialect);
  return {
    text: `SELECT id, unreadable FROM conversations WHERE hex = ${parameters.add(hex)} AND (directory_identity IS NOT NULL OR unreadable IS NOT NULL)`,
    values: parameters.values,
  };
}

/** The key a page after a cursor starts at; null keys mean the cursor did not count (the page starts over). */
export interface CursorKey {
  sortMicros: string | null;
  position: string | null;
}

/**
 * The key of the event `pageId` names, when that event passes the filters; no row
 * otherwise. A conversation serves one event per id (the ingester keeps the later file).
 */
export function cursorStatement(dialect: SqlDialect, conversationId: number, criteria: SearchCriteria): Statement {
  const parameters = new Parameters(dialect);
  const text = `SELECT e.sort_micros, e.position FROM events e
    WHERE e.conversation_id = ${parameters.add(conversationId)} AND e.event_id = ${parameters.add(textColumn(criteria.pageId ?? ''))}
      AND ${filterConditions(criteria, parameters)}`;
  return { text, values: parameters.values };
}

/**
 * Up to `limit + 1` events of a page from the cursor's event on (inclusive), or from the
 * start: the last only names the next page.
 */
export function pageStatement(
  dialect: SqlDialect,
  conversationId: number,
  cursor: CursorKey | undefined,
  criteria: SearchCriteria,
  form: PayloadForm,
): Statement {
  const parameters = new Parameters(dialect);
  const order = orderOf(criteria.sortOrder);
  const conditions = [`e.conversation_id = ${parameters.add(conversationId)}`, filterConditions(criteria, parameters)];
  if (cursor && cursor.sortMicros !== null && cursor.position !== null) {
    const comparison = order === 'DESC' ? '<=' : '>=';
    conditions.push(`(e.sort_micros, e.position) ${comparison} (${parameters.bigint(cursor.sortMicros)}, ${parameters.bigint(cursor.position)})`);
  }
  const text = `SELECT e.event_id, e.ingest_seq, e.position, ${dialect.payload('e.payload', form)} FROM ${dialect.orderedEvents(criteria, false)} WHERE ${conditions.join(' AND ')}
    ORDER BY e.sort_micros ${order}, e.position ${order} LIMIT ${parameters.add(criteria.limit + 1)}`;
  return { text, values: parameters.values };
}

/** How many of the conversation's events pass the filters. */
export function countStatement(dialect: SqlDialect, conversationId: number, filters: EventFilters): Statement {
  const parameters = new Parameters(dialect);
  const text = `SELECT count(*) AS count FROM ${dialect.orderedEvents(filters, false)} WHERE e.conversation_id = ${parameters.add(conversationId)} AND ${filterConditions(filters, parameters)}`;
  return { text, values: parameters.values };
}

/** The event's bytes; no row when the conversation serves no such event. */
export function eventByIdStatement(dialect: SqlDialect, conversationId: number, eventId: string, form: PayloadForm): Statement {
  const parameters = new Parameters(dialect);
  const text = `SELECT ${dialect.payload('e.payload', form)} FROM events e
    WHERE e.conversation_id = ${parameters.add(conversationId)} AND e.event_id = ${parameters.add(textColumn(eventId))}`;
  return { text, values: parameters.values };
}

/**
 * The two orders the sockets follow a conversation in: `appended`, the order the ingester
 * stored events (the events socket asks next for what came after the last it sent; a
 * conversation's events are written one transaction at a time, so a number below one
 * already seen is never committed later), and `storage`, the storage index in the file
 * names (the session socket's `seq`).
 */
export type FeedOrder = 'appended' | 'storage';

const FEED_COLUMN: Record<FeedOrder, string> = { appended: 'ingest_seq', storage: 'position' };

/** The conversation's highest number in that order (`last`; null: no events). */
export function feedLastStatement(dialect: SqlDialect, conversationId: number, order: FeedOrder): Statement {
  const parameters = new Parameters(dialect);
  return {
    text: `SELECT max(${FEED_COLUMN[order]}) AS last FROM events WHERE conversation_id = ${parameters.add(conversationId)}`,
    values: parameters.values,
  };
}

/** Up to `limit` events numbered after `after` in that order, in that order. */
export function feedStatement(
  dialect: SqlDialect,
  conversationId: number,
  order: FeedOrder,
  after: string,
  limit: number,
  form: PayloadForm,
): Statement {
  const parameters = new Parameters(dialect);
  const column = `e.${FEED_COLUMN[order]}`;
  const text = `SELECT e.event_id, e.ingest_seq, e.position, ${dialect.payload('e.payload', form)} FROM events e
    WHERE e.conversation_id = ${parameters.add(conversationId)} AND ${column} > ${parameters.bigint(after)}
    ORDER BY ${column} LIMIT ${parameters.add(limit)}`;
  return { text, values: parameters.values };
}

/** The columns a keyed row brings back: enough to name its key and serve its bytes. */
export interface KeyedRow {
  hex: string;
  /** The conversation's title; only the search across conversations reads it. */
  title?: string | null;
  sort_micros: number | string;
  position: number | string;
  payload: Buffer;
}

/**
 * Up to `limit + 1` matches across conversations after `criteria.after`, in walk order: the
 * last only says that another page follows. `use`: how `body` and `text` use the trigram
 * index (acrossLeadStatement tells when `check` is the one).
 */
export function acrossPageStatement(
  dialect: SqlDialect,
  criteria: CrossSearchCriteria,
  form: PayloadForm,
  use: Exclude<TrigramUse, object> = 'lead',
): Statement {
  const parameters = new Parameters(dialect);
  const order = orderOf(criteria.sortOrder);
  const conditions = [filterConditions(criteria, parameters, use)];
  if (criteria.after) conditions.push(keyCondition(criteria.after, order === 'DESC' ? '<' : '>', parameters));
  const text = `SELECT c.hex, c.title, e.sort_micros, e.position, ${dialect.payload('e.payload', form)}
    FROM ${dialect.orderedEvents(criteria, true)} JOIN conversations c ON c.id = e.conversation_id
    WHERE ${conditions.join(' AND ')}
    ORDER BY e.sort_micros ${order}, e.conversation_uuid ${order}, e.position ${order}
    LIMIT ${parameters.add(criteria.limit + 1)}`;
  return { text, values: parameters.values };
}

/**
 * The same page as acrossPageStatement, or fewer rows, found by walking only the first
 * `window` events that pass every filter but `body` and `text` and checking those row by
 * row. A needle most events hold fills a page within the window, where the trigram index
 * would hand over every event that holds it to be sorted; when the window holds `limit + 1`
 * matches they are the first ones (any match past the window comes after them), and
 * otherwise the caller asks acrossPageStatement. The walk checks each event where it reads
 * it and hands on only whether it matched: the searched texts are long, and the rows'
 * bytes are read only for matches. With `body` the window is of message events, whose text
 * SQLite reads from its index of them (sqlite/schema.ts).
 */
export function acrossWindowStatement(dialect: SqlDialect, criteria: CrossSearchCriteria, window: number, form: PayloadForm): Statement {
  const parameters = new Parameters(dialect);
  const order = orderOf(criteria.sortOrder);
  const conditions = [filterConditions({ ...criteria, body: undefined, text: undefined }, parameters)];
  if (criteria.body !== undefined) conditions.push('e.body_text IS NOT NULL');
  if (criteria.after) conditions.push(keyCondition(criteria.after, order === 'DESC' ? '<' : '>', parameters));
  const bind = (value: unknown) => parameters.add(value);
  const matches: string[] = [];
  if (criteria.body !== undefined) matches.push(likeContains('e.body_text', textColumn(criteria.body), bind));
  if (criteria.text !== undefined) matches.push(likeContains('e.search_text', textColumn(criteria.text), bind));
  const text = `SELECT c.hex, c.title, w.sort_micros, w.position, ${dialect.payload('t.payload', form)}
    FROM (SELECT e.conversation_id, e.sort_micros, e.conversation_uuid, e.position, (${matches.join(' AND ')}) AS matched
      FROM ${dialect.orderedEvents(criteria, true)} WHERE ${conditions.join(' AND ')}
      ORDER BY e.sort_micros ${order}, e.conversation_uuid ${order}, e.position ${order} LIMIT ${parameters.add(window)}) w
    CROSS JOIN events t JOIN conversations c ON c.id = t.conversation_id
    WHERE w.matched AND t.conversation_id = w.conversation_id AND t.position = w.position
    ORDER BY w.sort_micros ${order}, w.conversation_uuid ${order}, w.position ${order}
    LIMIT ${parameters.add(criteria.limit + 1)}`;
  return { text, values: parameters.values };
}

/**
 * The page of acrossPageStatement led by the rows the trigram index hands over for `text`'s
 * needle, fetched once, up to `atMost + 1` of them: every row carries their count
 * (`candidates`). With more than `atMost` the page is not read (the caller walks the order
 * instead, as `check`); a row whose `hex` is null only carries the count. Undefined where
 * the database plans the trigram index's use itself, or without a `text` that has trigrams.
 */
export function acrossLeadStatement(dialect: SqlDialect, criteria: CrossSearchCriteria, atMost: number, form: PayloadForm): Statement | undefined {
  const parameters = new Parameters(dialect);
  const bind = (value: unknown) => parameters.add(value);
  const candidates = criteria.text === undefined ? undefined : dialect.trigramCandidates(textColumn(criteria.text), bind);
  if (candidates === undefined) return undefined;
  const order = orderOf(criteria.sortOrder);
  const most = parameters.add(atMost);
  const conditions = [filterConditions(criteria, parameters, { candidates: 'candidates' })];
  if (criteria.after) conditions.push(keyCondition(criteria.after, order === 'DESC' ? '<' : '>', parameters));
  const text = `WITH candidates(row_id) AS MATERIALIZED (${candidates} LIMIT ${most} + 1)
    SELECT (SELECT count(*) FROM candidates) AS candidates, p.* FROM (SELECT 1) one LEFT JOIN (
      SELECT c.hex, c.title, e.sort_micros, e.conversation_uuid, e.position, ${dialect.payload('e.payload', form)}
      FROM events e JOIN conversations c ON c.id = e.conversation_id
      WHERE ${conditions.join(' AND ')}
      ORDER BY e.sort_micros ${order}, e.conversation_uuid ${order}, e.position ${order}
      LIMIT CASE WHEN (SELECT count(*) FROM candidates) <= ${most} THEN ${parameters.add(criteria.limit + 1)} ELSE 0 END) p ON 1
    ORDER BY p.sort_micros ${order}, p.conversation_uuid ${order}, p.position ${order}`;
  return { text, values: parameters.values };
}

/** How many events of every conversation pass the filters. */
export function acrossCountStatement(dialect: SqlDialect, filters: EventFilters): Statement {
  const parameters = new Parameters(dialect);
  return {
    text: `SELECT count(*) AS count FROM ${dialect.orderedEvents(filters, true)} WHERE ${filterConditions(filters, parameters)}`,
    values: parameters.values,
  };
}

/** A row of an export batch: its key, what the event is, the version of the file it was read from, and its size. */
export interface ExportRow extends Omit<KeyedRow, 'payload'> {
  event_id: string;
  kind: string;
  file_size: number | string;
  file_modified_ms: number;
  size: number | string;
  /** Null for an event over the batch's `wholeBytes`. */
  payload: Buffer | null;
}

/**
 * One batch of a conversation's export: `limit` events in ascending order after `after`,
 * each with its size, and its bytes only when they are no more than `wholeBytes`. Both
 * databases answer `length` of a stored value without reading it, so a larger event's
 * bytes are not read here at all (eventPieceStatement reads them).
 */
export function exportBatchStatement(
  dialect: SqlDialect,
  conversationId: number,
  hex: string,
  after: EventKey | undefined,
  limit: number,
  wholeBytes: number,
  form: PayloadForm,
): Statement {
  const parameters = new Parameters(dialect);
  const conditions = [`e.conversation_id = ${parameters.add(conversationId)}`];
  if (after) {
    conditions.push(
      `(e.sort_micros, e.position) > (${parameters.bigint(storedSortMicros(after.micros ?? undefined))}, ${parameters.bigint(String(after.position))})`,
    );
  }
  const whole = `CASE WHEN length(e.payload) <= ${parameters.add(wholeBytes)} THEN e.payload END`;
  const text = `SELECT ${parameters.add(hex)} AS hex, e.sort_micros, e.position, e.event_id, e.kind, e.file_size, e.file_modified_ms,
      length(e.payload) AS size, ${dialect.payload(whole, form)}
    FROM events e WHERE ${conditions.join(' AND ')}
    ORDER BY e.sort_micros, e.position LIMIT ${parameters.add(limit)}`;
  return { text, values: parameters.values };
}

function keyCondition(key: EventKey, comparison: '<' | '>', parameters: Parameters): string {
  const micros = parameters.bigint(storedSortMicros(key.micros ?? undefined));
  return `(e.sort_micros, e.conversation_uuid, e.position) ${comparison} (${micros}, ${parameters.conversationUuid(key.hex)}, ${parameters.bigint(String(key.position))})`;
}

const NO_TIMESTAMP = storedSortMicros(undefined);

/** A row's key in the order across conversations. */
export function keyOfRow(row: Pick<KeyedRow, 'hex' | 'sort_micros' | 'position'>): EventKey {
  return { micros: String(row.sort_micros) === NO_TIMESTAMP ? null : Number(row.sort_micros), hex: row.hex, position: Number(row.position) };
}

/** Every conversation with its count of event files (served or not, as the reference counts them), title and the stored bytes of its last appended event, most recent activity first. */
export function conversationListStatement(form: PayloadForm, dialect: SqlDialect): Statement {
  const text = `SELECT c.hex, c.title, c.event_count + c.skipped_count AS event_count,
      (SELECT ${dialect.payload('l.payload', form)} FROM events l WHERE l.conversation_id = c.id ORDER BY l.position DESC LIMIT 1) AS last_payload,
      (SELECT l.sort_micros FROM events l WHERE l.conversation_id = c.id ORDER BY l.position DESC LIMIT 1) AS last_micros
    FROM conversations c
    WHERE c.directory_identity IS NOT NULL
    ORDER BY last_micros DESC NULLS LAST, c.hex`;
  return { text, values: [] };
}
