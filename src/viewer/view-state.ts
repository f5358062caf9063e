/**
 * What the page shows, read from and written to its address, with the search
 * operation's own parameter names: `/?conversation=<id>&kind=MessageEvent&body=needle`.
 * A view is therefore a link, and opening the link shows that view.
 */
import type { EventSortOrder, SearchQuery } from '../contract/types';

/** The search filters the page offers: the operation's parameters, without paging. */
export type ViewFilters = Pick<SearchQuery, 'kind' | 'source' | 'body' | 'timestamp__gte' | 'timestamp__lt' | 'sort_order'>;

export interface ViewState {
  /** The open conversation's id; undefined shows the list of conversations. */
  conversation?: string;
  /** One event of the open conversation to scroll to and highlight: a link to that event. */
  event?: string;
  /** On the list: text searched for in every conversation's messages. */
  search?: string;
  filters: ViewFilters;
}

const TEXT_FILTERS = ['kind', 'source', 'body', 'timestamp__gte', 'timestamp__lt'] as const satisfies readonly (keyof ViewFilters)[];
const SORT_ORDERS: readonly EventSortOrder[] = ['TIMESTAMP', 'TIMESTAMP_DESC'];

export function readViewState(address: string): ViewState {
  const params = new URLSearchParams(address);
  const filters: ViewFilters = {};
  for (const name of TEXT_FILTERS) {
    const value = params.get(name);
    if (value !== null && value !== '') filters[name] = value;
  }
  const sortOrder = params.get('sort_order');
  // Any other value is passed on, so the server's 422 tells the reader what is wrong with the link.
  if (sortOrder !== null && sortOrder !== '') filters.sort_order = sortOrder as EventSortOrder;
  const conversation = params.get('conversation') || undefined;
  const event = params.get('event') || undefined;
  const searched = params.get('search') || undefined;
  if (conversation) return { conversation, ...(event ? { event } : {}), filters };
  return searched ? { search: searched, filters } : { filters };
}

export function viewStateSearch(state: ViewState): string {
  const params = new URLSearchParams();
  if (state.conversation) params.set('conversation', state.conversation);
  if (state.conversation && state.event) params.set('event', state.event);
  if (!state.conversation && state.search) params.set('search', state.search);
  for (const name of TEXT_FILTERS) {
    const value = state.filters[name];
    if (typeof value === 'string' && value !== '') params.set(name, value);
  }
  if (state.filters.sort_order && state.filters.sort_order !== 'TIMESTAMP') params.set('sort_order', state.filters.sort_order);
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function isKnownSortOrder(value: string | undefined | null): value is EventSortOrder {
  return SORT_ORDERS.includes(value as EventSortOrder);
}
