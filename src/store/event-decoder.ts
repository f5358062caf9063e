/**
 * Turns one event file's bytes into what the index keeps: the trimmed bytes the server
 * serves verbatim, and the few fields the search needs. The parsed object is dropped
 * here, so memory holds each event once, as bytes. Runs on whichever thread decodes
 * (decode-worker.ts or the main thread for small loads); it holds no state of its own.
 */
import { isUtf8 } from 'node:buffer';
import type { Event } from '../contract';
import { DEFAULT_SOURCE, IndexedEvent, searchableText, storedTimestampMicros } from '../search';
import type { EventFileName } from './event-file-name';
import { eventContractViolation } from './event-validator';

/**
 * `event.payload` is a view of the input, trimmed: the caller copies it to wherever
 * payloads are kept and puts the copy in its place.
 */
export type DecodedEvent = { ok: true; event: IndexedEvent<Buffer> } | { ok: false; reason: string };

/**
 * Decodes a stored event. A failure's reason is short and never quotes the file's
 * content (events may hold secrets such as `encrypted_content`), which is why the JSON
 * parser's own message, which quotes the text near the error, is not passed on.
 */
export function decodeEventFile(bytes: Buffer, file: EventFileName): DecodedEvent {
  const payload = trimJsonWhitespace(bytes);
  if (payload.length === 0) return { ok: false, reason: 'empty file' };
  // Bytes are served as they are, so they must already be valid UTF-8.
  if (!isUtf8(payload)) return { ok: false, reason: 'not valid UTF-8' };
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return { ok: false, reason: 'not valid JSON (truncated or corrupt)' };
  }
  const violation = eventContractViolation(value);
  if (violation !== undefined) return { ok: false, reason: violation };
  return { ok: true, event: indexedEvent(value as Event, file, payload) };
}

/** Every index entry is built with this literal's shape (packed-batch.ts too), so they share one hidden class. */
function indexedEvent(event: Event, file: EventFileName, payload: Buffer): IndexedEvent<Buffer> {
  return {
    // The contract makes `id` optional; the file name always carries one.
    id: event.id ?? file.id,
    kind: event.kind,
    source: event.source ?? DEFAULT_SOURCE[event.kind],
    micros: storedTimestampMicros(event.timestamp),
    position: file.position,
    text: searchableText(event),
    payload,
  };
}

const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** The bytes without leading and trailing JSON whitespace; a view, not a copy. */
export function trimJsonWhitespace(bytes: Buffer): Buffer {
  let start = 0;
  let end = bytes.length;
  while (start < end && JSON_WHITESPACE.has(bytes[start]!)) start++;
  while (end > start && JSON_WHITESPACE.has(bytes[end - 1]!)) end--;
  return start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end);
}
