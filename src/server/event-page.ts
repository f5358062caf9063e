import type { EventPage } from '../contract';
import { SerializedJson } from './operations';

const ITEMS_PLACEHOLDER = '"items":[]';

/**
 * The response body of a page, as the pieces to write one after another, built from the
 * stored events' own JSON bytes so that items are served exactly as stored and never
 * re-serialized. The frame around them is an `EventPage` value, so a change to `EventPage`
 * in the contract fails to compile here, where the body is built. A piece of stored JSON
 * may hold several consecutive events already joined with commas (StoredPage): a first
 * page from the directory store is one or two such views of its memory, not copies.
 */
export function eventPageBody(itemsJson: readonly Buffer[], nextPageId: string | null): SerializedJson<EventPage> {
  const frame: EventPage = { items: [], next_page_id: nextPageId };
  const json = JSON.stringify(frame);
  const at = json.indexOf(ITEMS_PLACEHOLDER) + ITEMS_PLACEHOLDER.length - 1;
  const parts: Buffer[] = [Buffer.from(json.slice(0, at))];
  for (const piece of itemsJson) {
    if (parts.length > 1) parts.push(SEPARATOR);
    parts.push(piece);
  }
  parts.push(Buffer.from(json.slice(at)));
  return new SerializedJson(parts);
}

const SEPARATOR = Buffer.from(',');
