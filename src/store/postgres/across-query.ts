/**
 * The statements of the search across conversations and of an export, each a walk of an
 * ordered index from a key (migrations/0002-across-conversations.ts), run with sequential
 * scans switched off for the transaction (test/postgres/query-plans.test.ts shows the plans).
 */
import type { CrossSearchCriteria, EventFilters, EventKey } from '../../search';
import { type PayloadForm, Parameters, type Statement, filterConditions } from './event-query';
import { storedSortMicros } from './sort-micros';

/** The columns a keyed row brings back: enough to name its key and serve its bytes. */
export interface KeyedRow {
  hex: string;
  /** The conversation's title; only the search across conversations reads it. */
  title?: string | null;
  sort_micros: string;
  position: string;
  payload: Buffer;
}

function payloadColumn(form: PayloadForm): string {
  return form === 'text' ? `convert_from(e.payload, 'UTF8') AS payload` : 'e.payload AS payload';
}

/** Up to `limit + 1` matches after `criteria.after`, in walk order: the last only says that another page follows. */
export function acrossPageStatement(criteria: CrossSearchCriteria, form: PayloadForm = 'text'): Statement {
  const parameters = new Parameters();
  const order = criteria.sortOrder === 'TIMESTAMP_DESC' ? 'DESC' : 'ASC';
  const conditions = [filterConditions(criteria, parameters)];
  if (criteria.after) conditions.push(keyCondition(criteria.after, order === 'DESC' ? '<' : '>', parameters));
  const text = `SELECT c.hex, c.title, e.sort_micros::text AS sort_micros, e.position::text AS position, ${payloadColumn(form)}
    FROM events e JOIN conversations c ON c.id = e.conversation_id
    WHERE ${conditions.join(' AND ')}
    ORDER BY e.sort_micros ${order}, e.conversation_uuid ${order}, e.position ${order}
    LIMIT ${parameters.add(criteria.limit + 1)}`;
  return { text, values: parameters.values };
}

/** How many events of every conversation pass the filters. */
export function acrossCountStatement(filters: EventFilters): Statement {
  const parameters = new Parameters();
  return { text: `SELECT count(*) AS count FROM events WHERE ${filterConditions(filters, parameters)}`, values: parameters.values };
}

/** The conversation's id in the table; no row when there is no such conversation. */
export function conversationIdStatement(hex: string): Statement {
  return { text: 'SELECT id FROM conversations WHERE hex = $1', values: [hex] };
}

/** One batch of a conversation's export: `limit` events in ascending order after `after`. */
export function exportBatchStatement(
  conversationId: number,
  hex: string,
  after: EventKey | undefined,
  limit: number,
  form: PayloadForm = 'text',
): Statement {
  const parameters = new Parameters();
  const conditions = [`e.conversation_id = ${parameters.add(conversationId)}`];
  if (after) {
    conditions.push(
      `(e.sort_micros, e.position) > (${parameters.add(storedSortMicros(after.micros ?? undefined))}::bigint, ${parameters.add(after.position)}::bigint)`,
    );
  }
  const text = `SELECT ${parameters.add(hex)}::text AS hex, e.sort_micros::text AS sort_micros, e.position::text AS position, ${payloadColumn(form)}
    FROM events e WHERE ${conditions.join(' AND ')}
    ORDER BY e.sort_micros, e.position LIMIT ${parameters.add(limit)}`;
  return { text, values: parameters.values };
}

function keyCondition(key: EventKey, comparison: '<' | '>', parameters: Parameters): string {
  const micros = parameters.add(storedSortMicros(key.micros ?? undefined));
  return `(e.sort_micros, e.conversation_uuid, e.position) ${comparison} (${micros}::bigint, ${parameters.add(key.hex)}::uuid, ${parameters.add(key.position)}::bigint)`;
}

const NO_TIMESTAMP = storedSortMicros(undefined);

/** A row's key, as the directory store would name the same event. */
export function keyOfRow(row: KeyedRow): EventKey {
  return { micros: row.sort_micros === NO_TIMESTAMP ? null : Number(row.sort_micros), hex: row.hex, position: Number(row.position) };
}
