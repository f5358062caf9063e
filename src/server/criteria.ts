import { parseUuid } from '../request-value';
/**
 * From the contract's query parameters, already validated, to the search's criteria, with
 * the contract's defaults. Ids and timestamps are not parsed
 * here again: they come as the request path read them once (parsed-values.ts).
 */
import type { CountQuery, SearchPath, SearchQuery } from '../contract';
import { type EventFilters, type SearchCriteria, kindOfFilterValue } from '../search';
import type { ParsedValues } from './parsed-values';
import { queryDefault } from './query-defaults';

const GTE = 'timestamp__gte' satisfies keyof CountQuery;
const LT = 'timestamp__lt' satisfies keyof CountQuery;
const CONVERSATION_ID = 'conversation_id' satisfies keyof SearchPath;

/** The filters of a query; `text` exists on the searches across conversations only. */
export function eventFiltersOf(query: CountQuery & { text?: string | null }, parsed: ParsedValues): EventFilters {
  const filters: EventFilters = {};
  if (typeof query.kind === 'string') filters.kind = kindOfFilterValue(query.kind) ?? null;
  if (typeof query.source === 'string') filters.source = query.source;
  if (typeof query.body === 'string') filters.body = query.body.toLowerCase();
  if (typeof query.text === 'string') filters.text = query.text.toLowerCase();
  const gte = parsed.instant(GTE);
  if (gte !== undefined) filters.gte = gte;
  const lt = parsed.instant(LT);
  if (lt !== undefined) filters.lt = lt;
  return filters;
}

export function searchCriteriaOf(query: SearchQuery, parsed: ParsedValues): SearchCriteria {
  const criteria: SearchCriteria = {
    ...eventFiltersOf(query, parsed),
    limit: query.limit ?? queryDefault('searchConversationEvents', 'limit'),
    sortOrder: query.sort_order ?? queryDefault('searchConversationEvents', 'sort_order'),
  };
  if (typeof query.page_id === 'string') criteria.pageId = query.page_id;
  return criteria;
}

/** The conversation id as the stores name it: 32 lower-case hex digits. */
export function conversationHex(parsed: ParsedValues): string {
  return parsed.uuidHex(CONVERSATION_ID);
}

/** A uuid the validator has passed that was not read in advance: the items of a list parameter. */
export function validatedUuidHex(value: string): string {
  const parsed = parseUuid(value);
  if (!parsed.ok) throw new Error(`a listed id passed validation but does not parse: ${parsed.message}`);
  return parsed.hex;
}
