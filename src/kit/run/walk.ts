/**
 * Walking every page of a search, recording each page as received so that paging checks
 * can judge seams, cursors and the end signal. A walk never loops: it stops at a repeated
 * cursor, at `""` (a client checking `!== null` would loop on it) and at a page cap.
 */
import type { SearchQuery } from '../../contract';
import { slim, type Exchange, type RequestFailure } from '../http';
import { observeEvent, type ObservedEvent } from './observed-event';
import type { Search } from './search-request';

export type WalkQuery = Omit<SearchQuery, 'page_id'>;

export interface WalkPage {
  /** The `page_id` this page was requested with. */
  pageId: string | undefined;
  exchange: Exchange;
  items: ObservedEvent[];
  nextPageId: unknown;
  hasNextPageIdKey: boolean;
}

/**
 * How the walk ended. The first three are ends the server signalled; `cycle` and
 * `page-cap` are the kit giving up; the rest are responses that were not a page.
 */
export type WalkEnd = 'null' | 'missing' | 'empty-string' | 'cycle' | 'page-cap' | 'not-a-page' | 'bad-cursor' | 'request-failed';

export interface Walk {
  query: WalkQuery;
  pages: WalkPage[];
  /** Every item of every page, in order, duplicates kept. */
  events: ObservedEvent[];
  end: WalkEnd;
  /** The response that was not a page (`not-a-page`), or the request that got none. */
  stoppedAt?: Exchange;
  failure?: RequestFailure;
}

/** True when the server signalled the end (whether or not it did so the way the contract wants). */
export function isComplete(walk: Walk): boolean {
  return walk.end === 'null' || walk.end === 'missing' || walk.end === 'empty-string';
}

export async function walkPages(search: Search, query: WalkQuery, maxPages: number): Promise<Walk> {
  const walk: Walk = { query, pages: [], events: [], end: 'page-cap' };
  const cursorsSeen = new Set<string>();
  let pageId: string | undefined;
  while (walk.pages.length < maxPages) {
    const outcome = await search({ ...query, page_id: pageId });
    if (!outcome.ok) return { ...walk, end: 'request-failed', failure: outcome.failure };
    if (!outcome.page) return { ...walk, end: 'not-a-page', stoppedAt: slim(outcome.exchange) };
    const { items, nextPageId, hasNextPageIdKey } = outcome.page;
    const observed = items.map((item, index) => observeEvent(item, walk.events.length + index));
    walk.pages.push({ pageId, exchange: slim(outcome.exchange), items: observed, nextPageId, hasNextPageIdKey });
    walk.events.push(...observed);
    const end = endSignalOf(nextPageId);
    if (end) return { ...walk, end };
    const cursor = nextPageId as string;
    if (cursorsSeen.has(cursor) || cursor === pageId) return { ...walk, end: 'cycle' };
    cursorsSeen.add(cursor);
    pageId = cursor;
  }
  return walk;
}

function endSignalOf(nextPageId: unknown): WalkEnd | undefined {
  if (nextPageId === null) return 'null';
  if (nextPageId === undefined) return 'missing';
  if (nextPageId === '') return 'empty-string';
  if (typeof nextPageId !== 'string') return 'bad-cursor';
  return undefined;
}

/** Why a walk did not finish, in words, or undefined when the server signalled the end. */
export function describeIncompleteWalk(walk: Walk): string | undefined {
  switch (walk.end) {
    case 'null':
    case 'missing':
    case 'empty-string':
      return undefined;
    case 'cycle':
      return `next_page_id ${JSON.stringify(walk.pages[walk.pages.length - 1]?.nextPageId)} was handed out a second time: following it would loop forever`;
    case 'page-cap':
      return `no last page within ${walk.pages.length} pages`;
    case 'bad-cursor':
      return `next_page_id is ${JSON.stringify(walk.pages[walk.pages.length - 1]?.nextPageId)}, neither a string nor null`;
    case 'not-a-page':
      return `page ${walk.pages.length + 1} was not an EventPage (status ${walk.stoppedAt?.status})`;
    case 'request-failed':
      return `page ${walk.pages.length + 1} got no response: ${walk.failure?.message}`;
  }
}
