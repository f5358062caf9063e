/**
 * From the contract's query parameters, already validated, to the search's criteria:
 * each value parsed once, with the seed's defaults (section 4.1: limit 100, ascending).
 */
import type { CountQuery, SearchQuery } from '../contract';
import { type EventFilters, type SearchCriteria, kindOfFilterValue, parseFilterTimestamp, parseUuid } from '../search';

export function eventFiltersOf(query: CountQuery): EventFilters {
  const filters: EventFilters = {};
  if (typeof query.kind === 'string') filters.kind = kindOfFilterValue(query.kind) ?? null;
  if (typeof query.source === 'string') filters.source = query.source;
  if (typeof query.body === 'string') filters.body = query.body.toLowerCase();
  if (typeof query.timestamp__gte === 'string') filters.gte = instant(query.timestamp__gte);
  if (typeof query.timestamp__lt === 'string') filters.lt = instant(query.timestamp__lt);
  return filters;
}

export function searchCriteriaOf(query: SearchQuery): SearchCriteria {
  const criteria: SearchCriteria = { ...eventFiltersOf(query), limit: query.limit ?? 100, sortOrder: query.sort_order ?? 'TIMESTAMP' };
  if (typeof query.page_id === 'string') criteria.pageId = query.page_id;
  return criteria;
}

/** The conversation id as the stores name it: 32 lower-case hex digits. */
export function conversationHex(conversationId: string): string {
  const parsed = parseUuid(conversationId);
  if (!parsed.ok) throw new Error(`conversation_id passed validation but does not parse: ${parsed.message}`);
  return parsed.hex;
}

function instant(value: string): number {
  const parsed = parseFilterTimestamp(value);
  if (!parsed.ok) throw new Error(`timestamp passed validation but does not parse: ${parsed.message}`);
  return parsed.micros;
}
