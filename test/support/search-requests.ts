/**
 * Requests and expected bodies for the server tests: search paths, zoned renderings of a
 * naive local timestamp, the chronological order a search must return, and a raw
 * `page_id` loop that checks the paging protocol on every page.
 */
import type { Event, EventPage } from '../../src/contract';
import { parseNaiveTimestamp } from '../../src/fixture';
import type { LiveServer } from './live-server';

export type Query = Record<string, string | number>;

/**
 * The search path of a conversation. A record is percent-encoded value by value; a string
 * is appended exactly as given, for requests that must reach the server unencoded.
 */
export function searchPath(conversationId: string, query: Query | string = {}): string {
  const text =
    typeof query === 'string'
      ? query
      : Object.entries(query)
          .map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`)
          .join('&');
  return `/api/conversations/${conversationId}/events/search${text === '' ? '' : `?${text}`}`;
}

/** The whole body of a page holding these events. */
export function pageBody(events: readonly Event[], nextPageId: string | null = null): EventPage {
  return { items: [...events], next_page_id: nextPageId };
}

/**
 * The events in search order, computed without the code under test: stable-sorted by the
 * naive timestamp to the microsecond, storage order among ties; reversed whole for DESC.
 */
export function searchOrder(events: readonly Event[], sortOrder: 'TIMESTAMP' | 'TIMESTAMP_DESC' = 'TIMESTAMP'): Event[] {
  const ordered = events
    .map((event, position) => ({ event, position, micros: parseNaiveTimestamp(event.timestamp ?? '') }))
    .sort((a, b) => a.micros - b.micros || a.position - b.position)
    .map(({ event }) => event);
  return sortOrder === 'TIMESTAMP_DESC' ? ordered.reverse() : ordered;
}

/** Milliseconds since the epoch of a naive timestamp read as this process's local time (fraction dropped). */
function localMillis(naive: string): number {
  const millis = Date.parse(naive.slice(0, 19));
  if (Number.isNaN(millis)) throw new Error(`not a naive timestamp: ${naive}`);
  return millis;
}

/** The process's UTC offset, in minutes east, at a naive local timestamp. */
export function localOffsetMinutes(naive: string): number {
  return -new Date(localMillis(naive)).getTimezoneOffset();
}

/**
 * The same instant as the naive local `naive`, written with the given offset (`Z` for 0
 * when `zulu`), microseconds kept. Works in any process time zone.
 */
export function zoned(naive: string, offsetMinutes: number, zulu = false): string {
  const fraction = naive.length > 19 ? naive.slice(19) : '';
  const wall = new Date(localMillis(naive) + offsetMinutes * 60_000).toISOString().slice(0, 19);
  if (offsetMinutes === 0 && zulu) return `${wall}${fraction}Z`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offsetMinutes) % 60).padStart(2, '0');
  return `${wall}${fraction}${sign}${hours}:${minutes}`;
}

/** Unix seconds of a whole-second naive local timestamp. */
export function unixSeconds(naive: string): number {
  return localMillis(naive) / 1000;
}

/**
 * Reads every page with `page_id`, repeating the query, and checks the protocol on each
 * page: status 200, at most `limit` items, a full page whenever `next_page_id` is set,
 * `next_page_id` always present, and no cursor handed out twice.
 */
export async function walkRaw(
  server: LiveServer,
  conversationId: string,
  query: Query & { limit: number },
): Promise<{ items: Event[]; pages: number }> {
  const items: Event[] = [];
  const cursors = new Set<string>();
  let pageId: string | null = null;
  let pages = 0;
  do {
    const response = await server.get(searchPath(conversationId, pageId === null ? query : { ...query, page_id: pageId }));
    expect(response.status).toBe(200);
    const page = response.body as EventPage;
    expect(Object.keys(page).sort()).toEqual(['items', 'next_page_id']);
    expect(page.items.length).toBeLessThanOrEqual(query.limit);
    pageId = page.next_page_id ?? null;
    if (pageId !== null) {
      expect(page.items).toHaveLength(query.limit);
      expect(cursors.has(pageId)).toBe(false);
      cursors.add(pageId);
    }
    items.push(...page.items);
    pages += 1;
  } while (pageId !== null);
  return { items, pages };
}
