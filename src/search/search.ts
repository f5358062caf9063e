import type { EventKind, EventSortOrder } from '../contract';
import type { Micros } from './timestamps';

/**
 * Validated filters, shared by search and count: every value already parsed, `body` and
 * `text` already lower-cased. The semantics (seed section 4.1, docs/reference-behaviour.md,
 * "Search") are implemented once, in SQL, by src/store/sql/queries.ts.
 */
export interface EventFilters {
  /** `null` when the filter named no known kind: nothing matches. */
  kind?: EventKind | null;
  source?: string;
  /** A substring of a message event's text (the seed's `body`). */
  body?: string;
  /** A substring of any text of an event a person reads (searchableEventText). */
  text?: string;
  gte?: Micros;
  lt?: Micros;
}

/** A validated search: the filters, the order and the page wanted. */
export interface SearchCriteria extends EventFilters {
  sortOrder: EventSortOrder;
  pageId?: string;
  limit: number;
}
