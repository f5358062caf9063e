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

/**
 * The pieces with each run of views that lie one after another in one buffer, a comma
 * between each two there, as one view of that run: the same bytes as the pieces joined with
 * commas, written without copying (a kept first page's events are such views,
 * src/store/sqlite/kept-first-pages.ts).
 */
export function adjacentPiecesJoined(pieces: readonly Buffer[]): Buffer[] {
  const joined: Buffer[] = [];
  for (const piece of pieces) {
    const last = joined[joined.length - 1];
    const end = last === undefined ? -1 : last.byteOffset + last.length;
    if (last !== undefined && piece.buffer === last.buffer && piece.byteOffset === end + 1 && new Uint8Array(last.buffer, end, 1)[0] === COMMA)
      joined[joined.length - 1] = Buffer.from(last.buffer, last.byteOffset, last.length + 1 + piece.length);
    else joined.push(piece);
  }
  return joined;
}

const COMMA = 0x2c;
