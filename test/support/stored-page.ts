import type { StoredPage } from '../../src/store';

/**
 * A page's events, one string each, from the pieces a store hands over (a piece may hold
 * several consecutive events joined with commas): the array a response's `items` holds,
 * re-serialised per event so that two stores' pages compare event by event.
 */
export function storedItems(page: StoredPage): string[] {
  return (JSON.parse(`[${page.itemsJson.join(',')}]`) as unknown[]).map((item) => JSON.stringify(item));
}
