/**
 * The SQL of the search filters, with every value a bound parameter. Each shape is served
 * by one of the ordered indexes of migrations/0001-events.sql (test/postgres/query-plans
 * proves it with EXPLAIN), or by the trigram index for `body`.
 */
import type { SearchCriteria } from '../../search';
import { filterSortMicros } from './sort-micros';
import { textColumn } from './text-column';

export type EventFilters = Pick<SearchCriteria, 'kind' | 'source' | 'body' | 'gte' | 'lt'>;

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
  if (filters.body !== undefined) conditions.push(`body_text LIKE ${parameters.add(containsPattern(textColumn(filters.body)))}`);
  if (filters.gte !== undefined) conditions.push(`sort_micros >= ${parameters.add(filterSortMicros(filters.gte))}::bigint`);
  if (filters.lt !== undefined) conditions.push(`sort_micros < ${parameters.add(filterSortMicros(filters.lt))}::bigint`);
  return conditions.length === 0 ? 'true' : conditions.join(' AND ');
}

/** A LIKE pattern matching any text that contains `text` (LIKE's default escape is the backslash). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}
