/**
 * Checks stored events against the contract's `Event` schema, with the validator
 * src/contract/event-validator.ts compiled ahead of time.
 */
import type { ErrorObject } from 'ajv';
import { validateEvent } from '../../contract/event-validator';

/** Why an event does not match: a newer server's value the contract's enums lack, or a break. */
export type ContractMismatch = { because: 'unknown-value'; value: string } | { because: 'broken'; reason: string };

const MAX_DETAIL_CHARS = 120;
/** A value outside an enum is quoted only when it looks like a vocabulary word: stored events may hold secrets. */
const VOCABULARY_WORD = /^[A-Za-z0-9_.:-]{1,40}$/;

/**
 * Checks a parsed value against the contract's `Event`; undefined when it matches. A
 * value outside an enum, or a nested kind the contract does not have (an action's
 * `kind`), is a word a newer server added; anything else is a break. Reasons are built
 * from the first error: the instance path and Ajv's message, which name the schema's
 * expectations and never the event's values.
 */
export function contractMismatch(value: unknown): ContractMismatch | undefined {
  if (validateEvent(value)) return undefined;
  const error = validateEvent.errors?.[0];
  if (!error) return { because: 'broken', reason: 'does not match the contract' };
  const unknownTag = error.keyword === 'discriminator' && error.params['error'] === 'mapping';
  if (error.keyword === 'enum' || error.keyword === 'const' || unknownTag) {
    const path = unknownTag ? `${error.instancePath}/${String(error.params['tag'])}` : error.instancePath;
    return { because: 'unknown-value', value: `${displayPath(path)} = ${describeValue(valueAt(value, path))}` };
  }
  return { because: 'broken', reason: describeError(error) };
}

function describeError(error: ErrorObject): string {
  const where = clip(error.instancePath || '/');
  // An unknown property's name is the actionable part; it is a key, not a value.
  const property = error.keyword === 'additionalProperties' ? ` (${clip(String(error.params['additionalProperty']))})` : '';
  return `does not match the contract at ${where}: ${error.message ?? error.keyword}${property}`;
}

function describeValue(value: unknown): string {
  return typeof value === 'string' && VOCABULARY_WORD.test(value) ? JSON.stringify(value) : 'a value the contract does not list';
}

function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const segment of pointer.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/** `/action/kind` as `action.kind`; array indexes as `[]`, so one count covers every element. */
export function displayPath(pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((segment) => (/^\d+$/.test(segment) ? '[]' : segment));
  return clip(segments.join('.').replace(/\.\[\]/g, '[]')) || '/';
}

export function clip(text: string): string {
  return text.length <= MAX_DETAIL_CHARS ? text : `${text.slice(0, MAX_DETAIL_CHARS)}...`;
}
