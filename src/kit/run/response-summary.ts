/**
 * A response as a report shows it: a page as its shape (how many items, which, and the
 * cursor), since raw JSON of events is long and says little at a glance; anything else as
 * the start of its body.
 */
import { excerptOf, type Exchange } from '../http';
import { pageOf } from './search-request';

const ITEMS_SHOWN = 3;

export function summarizeResponse(exchange: Exchange): string {
  const page = exchange.json.ok ? pageOf(exchange) : undefined;
  if (!page) return excerptOf(exchange, 300);
  const shown = page.items.slice(0, ITEMS_SHOWN).map(describeItem).join(', ');
  const more = page.items.length > ITEMS_SHOWN ? `, ... ${page.items.length - ITEMS_SHOWN} more` : '';
  const cursor = page.hasNextPageIdKey ? `next_page_id ${JSON.stringify(page.nextPageId)}` : 'no next_page_id key';
  return `EventPage with ${page.items.length} items [${shown}${more}], ${cursor}`;
}

function describeItem(item: unknown): string {
  const record = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
  return `${String(record['kind'] ?? '?')} ${String(record['id'] ?? '(no id)')}`;
}
