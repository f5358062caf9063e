/**
 * The `page_id` of the search across conversations: the key (timestamp, conversation id,
 * position) of the last event a page returned, and the order of the walk, as base64url
 * JSON. The next page holds what comes after that key, so every event is returned once:
 * one written or added meanwhile that sorts after it is still to come (one that sorts
 * before it was passed), and an event deleted meanwhile does not make the walk restart. The client treats it as opaque; the server checks every part of it.
 */
import type { EventSortOrder } from '../contract';
import type { EventKey } from '../search';

const VERSION = 1;
const HEX = /^[0-9a-f]{32}$/;

export type CursorReading = { ok: true; key: EventKey } | { ok: false; reason: string };

export function encodeCursor(order: EventSortOrder, key: EventKey): string {
  const fields = [VERSION, order === 'TIMESTAMP_DESC' ? 'd' : 'a', key.micros, key.hex, key.position];
  return Buffer.from(JSON.stringify(fields)).toString('base64url');
}

export function decodeCursor(order: EventSortOrder, pageId: string): CursorReading {
  if (!/^[A-Za-z0-9_-]+$/.test(pageId)) return { ok: false, reason: 'not a page_id this server handed out' };
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(pageId, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'not a page_id this server handed out' };
  }
  if (!Array.isArray(fields) || fields.length !== 5 || fields[0] !== VERSION) return { ok: false, reason: 'not a page_id this server handed out' };
  const [, direction, micros, hex, position] = fields as unknown[];
  if (direction !== (order === 'TIMESTAMP_DESC' ? 'd' : 'a')) return { ok: false, reason: `a page_id of a walk in the other order, not ${order}` };
  const validMicros = micros === null || (typeof micros === 'number' && Number.isFinite(micros));
  const validPosition = typeof position === 'number' && Number.isSafeInteger(position) && position >= 0;
  if (!validMicros || typeof hex !== 'string' || !HEX.test(hex) || !validPosition)
    return { ok: false, reason: 'not a page_id this server handed out' };
  return { ok: true, key: { micros: micros as number | null, hex, position: position as number } };
}
