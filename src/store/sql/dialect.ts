/**
 * Every difference between SQLite and PostgreSQL the statements meet, in one place: how a
 * value is bound, how a payload column is read, and how a substring is found with the
 * trigram index each has (FTS5's trigram tokenizer, pg_trgm). Everything else in
 * queries.ts is SQL both accept as written.
 */

import type { EventFilters } from '../../search';

export type DialectName = 'sqlite' | 'postgres';

/**
 * How a PostgreSQL statement returns stored bytes. As `text` (convert_from) they travel as
 * they are: half the bytes of bytea's hex form, and no hex decoding in the driver. The
 * database refuses that for bytes that are not valid UTF-8; the store then asks again for
 * `bytea`. SQLite hands a blob over as it is, whatever the form.
 */
export type PayloadForm = 'text' | 'bytea';

export interface SqlDialect {
  readonly name: DialectName;
  placeholder(n: number): string;
  bigintPlaceholder(n: number): string;
  uuidPlaceholder(n: number): string;
  /** A text value bound as its UTF-8 bytes. */
  utf8TextPlaceholder(n: number): string;
  /** The value a driver binds for a 64-bit integer given as decimal text. */
  bigintValue(decimal: string): unknown;
  listValue(values: readonly string[]): unknown;
  inList(column: string, n: number): string;
  /** A payload column, read as `payload`. */
  payload(column: string, form: PayloadForm): string;
  /**
   * Whether a row of events has its searched text: SQLite's rows always do; PostgreSQL's
   * stored before migration 0005 do not. Said without reading the text, which in SQLite
   * would take every page of the row where the ingester's list of stored files reads only
   * an index.
   */
  readonly hasSearchText: string;
  /**
   * A condition that the (already lower-cased) text column of events `e` holds `needle`:
   * where the dialect asks a trigram index, the index narrows and LIKE decides, so the
   * answer is exact whatever the index's folding. `bind` binds a value and returns its
   * placeholder.
   */
  contains(column: TextColumn, needle: string, bind: (value: unknown) => string, use?: TrigramUse): string;
  /**
   * A query of the row ids (`row_id`) whose searched text (`text`'s column) may hold
   * `needle`, as the trigram index answers it; undefined where the database plans its use
   * itself, or the needle is too short for the index.
   */
  trigramCandidates(needle: string, bind: (value: unknown) => string): string | undefined;
  /**
   * The events table as `e`, for a statement that walks it with these filters, in order or
   * to count them: the events of one conversation, or `across` conversations.
   */
  orderedEvents(filters: EventFilters, across: boolean): string;
}

export type TextColumn = 'body_text' | 'search_text';

/**
 * How a statement uses the trigram index for `text` (SQLite; PostgreSQL's planner chooses):
 * `lead`, the rows holding the needle's trigrams are fetched and sorted, which costs as many
 * as they are; `check`, the statement walks its ordered index and the trigram index only
 * says whether a row may hold the needle, which stops at the page's last match, so it costs
 * little where candidates are many; or the candidates are the rows of a table the statement
 * names (`candidates`: fetched once, with its WITH).
 */
export type TrigramUse = 'lead' | 'check' | { readonly candidates: string };

/** FTS5 and pg_trgm both index runs of three characters; a shorter needle has none. */
function hasTrigram(needle: string): boolean {
  return [...needle].length >= 3;
}

export const SQLITE: SqlDialect = {
  name: 'sqlite',
  // Numbered, so one value may be written once and used in any order.
  placeholder: (n) => `?${n}`,
  bigintPlaceholder: (n) => `?${n}`,
  uuidPlaceholder: (n) => `?${n}`,
  // A blob cast to text is read as the database's encoding, UTF-8.
  utf8TextPlaceholder: (n) => `CAST(?${n} AS TEXT)`,
  bigintValue: (decimal) => BigInt(decimal),
  listValue: (values) => JSON.stringify(values),
  inList: (column, n) => `${column} IN (SELECT value FROM json_each(?${n}))`,
  payload: (column) => `${column} AS payload`,
  hasSearchText: '1',
  contains: (column, needle, bind, use = 'lead') => {
    const like = likeContains(`e.${column}`, needle, bind);
    // FTS5 answers a needle of three characters or more from its index; a shorter one is
    // checked row by row, and so is `body`: message text is a small share of an archive, and
    // the indexes of message events hold it (schema.ts), so checking it there costs less
    // than reading the rows the trigram index names.
    if (column === 'body_text' || !hasTrigram(needle)) return like;
    if (typeof use === 'object') return `e.row_id IN (SELECT row_id FROM ${use.candidates}) AND ${like}`;
    // The unary plus keeps SQLite from leading with the row ids.
    return `${use === 'lead' ? '' : '+'}e.row_id IN (${sqliteCandidates(needle, bind)}) AND ${like}`;
  },
  trigramCandidates: (needle, bind) => (hasTrigram(needle) ? sqliteCandidates(needle, bind) : undefined),
  // A `body` search walks the index of message events, which holds every column it checks
  // (schema.ts). SQLite's planner, without statistics of the file, would as soon walk the
  // index of every event, reading each row.
  orderedEvents: (filters, across) =>
    filters.body === undefined ? 'events e' : `events e INDEXED BY ${across ? 'events_across_messages' : 'events_messages'}`,
};

/**
 * The row ids whose searched text may hold `needle`: those whose trigrams FTS5 holds, and
 * the rows stored since the index was last filled (sqlite/text-index.ts), which are checked
 * one by one.
 */
function sqliteCandidates(needle: string, bind: (value: unknown) => string): string {
  return `SELECT rowid AS row_id FROM events_text WHERE events_text MATCH ${bind(trigramQuery(needle))}
      UNION ALL SELECT row_id FROM events WHERE row_id > (SELECT through_row_id FROM events_text_mark)`;
}

export const POSTGRES: SqlDialect = {
  name: 'postgres',
  placeholder: (n) => `$${n}`,
  bigintPlaceholder: (n) => `$${n}::bigint`,
  uuidPlaceholder: (n) => `$${n}::uuid`,
  utf8TextPlaceholder: (n) => `convert_from($${n}::bytea, 'UTF8')`,
  bigintValue: (decimal) => decimal,
  listValue: (values) => values,
  inList: (column, n) => `${column} = ANY($${n}::text[])`,
  payload: (column, form) => (form === 'text' ? `convert_from(${column}, 'UTF8') AS payload` : `${column} AS payload`),
  hasSearchText: 'search_text IS NOT NULL',
  // pg_trgm's GIN index answers LIKE itself (and a needle too short for trigrams by a scan).
  contains: (column, needle, bind) => likeContains(`e.${column}`, needle, bind),
  trigramCandidates: () => undefined,
  orderedEvents: () => 'events e',
};

/** A condition that the (already lower-cased) text `column` holds `needle`, checked row by row; both dialects write it alike. */
export function likeContains(column: string, needle: string, bind: (value: unknown) => string): string {
  return `${column} LIKE ${bind(containsPattern(needle))} ESCAPE '\\'`;
}

/** A LIKE pattern matching any text that contains `text`, with the backslash as escape. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** Trigrams an FTS5 query names at most: enough to make a long needle selective. */
const MOST_TRIGRAMS = 32;

/**
 * An FTS5 query: trigrams of the needle that cover it end to end (every third one, and
 * the last), each a term of its own. The index keeps which rows hold a trigram, not where
 * (detail=none: smaller, and faster to fill; it answers no phrase of several trigrams), so
 * the query asks for rows holding all of them, and LIKE then checks they form the needle.
 * The trigrams between those would narrow the rows little, since the index cannot tell
 * where they stand, and each term costs a walk of every row that holds it.
 */
export function trigramQuery(needle: string): string {
  const characters = [...needle];
  const last = characters.length - 3;
  const starts: number[] = [];
  for (let start = 0; start < last && starts.length < MOST_TRIGRAMS - 1; start += 3) starts.push(start);
  starts.push(last);
  const trigrams = new Set(starts.map((start) => characters.slice(start, start + 3).join('')));
  return `(${[...trigrams].map((trigram) => `"${trigram.replace(/"/g, '""')}"`).join(' AND ')})`;
}
