/**
 * What the server makes of one stored event's bytes, as a pure function: serve it as
 * stored, serve it with the properties the contract does not list removed, or not serve
 * it, and why. Both stores apply it (the directory store while reading files, a database
 * store while ingesting), so a conversation is judged the same wherever it is kept.
 *
 * Stored events written by a newer agent server than the contract describes carry
 * properties, kinds and enum values the contract does not have. The rules:
 * - properties a closed object of the contract does not list are removed (or kept, in
 *   `as-stored` mode), and the rest is checked against the contract;
 * - an event of a kind the contract does not have, or holding a value outside one of its
 *   enums (`source: "hook"`), is not served, and is not counted as a broken file;
 * - anything else that does not match the contract, or is not JSON, is a broken file.
 */
import { isUtf8 } from 'node:buffer';
import type { Event } from '../../contract';
import { clip, contractMismatch } from './contract-check';
import { withoutTopLevelMembers } from './json-members';
import { compileUnlistedPropertyPruner } from './unlisted-properties';

/**
 * `contract` (the default) serves what the contract describes; `as-stored` serves the
 * stored bytes unchanged, properties the contract does not list included.
 */
export type StoredEventMode = 'contract' | 'as-stored';

export type StoredEventDecision =
  | {
      served: true;
      /** The bytes to serve: a view of the input (trimmed) when unchanged, new bytes when properties were removed. */
      payload: Buffer;
      /** The event as checked against the contract (unlisted properties removed in either mode). */
      event: Event;
      /** Paths of the properties the contract does not list (removed in `contract` mode, kept in `as-stored`). */
      unlisted: readonly string[];
    }
  | { served: false; because: 'unknown-kind'; kind: string }
  | { served: false; because: 'unknown-value'; value: string }
  | { served: false; because: 'broken'; reason: string };

const pruner = compileUnlistedPropertyPruner();

/**
 * Decides what to serve of a stored event. A broken file's reason is short and never
 * quotes the file's content (events may hold secrets such as `encrypted_content`), which
 * is why the JSON parser's own message, which quotes the text near the error, is not
 * passed on.
 */
export function decodeStoredEvent(bytes: Buffer, mode: StoredEventMode = 'contract'): StoredEventDecision {
  const stored = trimJsonWhitespace(bytes);
  if (stored.length === 0) return broken('empty file');
  // Bytes are served as they are, so they must already be valid UTF-8.
  if (!isUtf8(stored)) return broken('not valid UTF-8');
  let value: unknown;
  try {
    value = JSON.parse(stored.toString('utf8'));
  } catch {
    return broken('not valid JSON (truncated or corrupt)');
  }
  const kind = isObject(value) ? value['kind'] : undefined;
  if (typeof kind === 'string' && !pruner.kinds.has(kind)) return { served: false, because: 'unknown-kind', kind: clip(kind) };
  const { event, removed: unlisted } = pruner.prune(value);
  const mismatch = contractMismatch(event);
  if (mismatch) return { served: false, ...mismatch };
  const payload = unlisted.length === 0 || mode === 'as-stored' ? stored : withoutUnlisted(stored, event, unlisted);
  return { served: true, payload, event: event as Event, unlisted };
}

/**
 * The stored bytes without the unlisted properties: cut out of the text when they are all
 * top-level members (a newer server's usual additions), else the cleaned event serialised.
 */
function withoutUnlisted(stored: Buffer, event: unknown, unlisted: readonly string[]): Buffer {
  if (unlisted.every((path) => !path.includes('.') && !path.includes('['))) {
    const cut = withoutTopLevelMembers(stored, new Set(unlisted));
    if (cut) return cut;
  }
  return Buffer.from(JSON.stringify(event));
}

function broken(reason: string): StoredEventDecision {
  return { served: false, because: 'broken', reason };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
