import type { EventPage } from '../contract';

const ITEMS_PLACEHOLDER = '"items":[]';
const COMMA = Buffer.from(',');

/**
 * The response body of a page, built from the stored events' own JSON bytes so that
 * items are served exactly as stored and never re-serialized; the bytes are copied once.
 * The frame around them is an `EventPage` value, so a change to `EventPage` in the
 * contract fails to compile here, where the body is built.
 */
export function eventPageBody(storedEvents: readonly Buffer[], nextPageId: string | null): Buffer {
  const frame: EventPage = { items: [], next_page_id: nextPageId };
  const json = JSON.stringify(frame);
  const at = json.indexOf(ITEMS_PLACEHOLDER) + ITEMS_PLACEHOLDER.length - 1;
  const parts: Buffer[] = [Buffer.from(json.slice(0, at))];
  storedEvents.forEach((event, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(event);
  });
  parts.push(Buffer.from(json.slice(at)));
  return Buffer.concat(parts);
}
