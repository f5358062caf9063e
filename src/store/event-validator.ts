/**
 * Checks stored events against the contract's `Event` schema, compiled ahead of time by
 * `npm run generate` (generated/event-validator.js), so neither a server start nor a decode
 * worker pays Ajv's compile time before its first event.
 */
import type { ErrorObject } from 'ajv';
import validateEvent from '../../generated/event-validator';

const MAX_DETAIL_CHARS = 120;

/**
 * Checks a parsed value against the contract's `Event`. Returns undefined when it
 * matches, and otherwise a short reason built from the first error: the instance path
 * and Ajv's message, which name the schema's expectations and never the event's values.
 */
export function eventContractViolation(value: unknown): string | undefined {
  if (validateEvent(value)) return undefined;
  const first = validateEvent.errors?.[0];
  return first ? describeError(first) : 'does not match the contract';
}

function describeError(error: ErrorObject): string {
  const where = clip(error.instancePath || '/');
  // The unknown property's name is the actionable part (a newer server's `parent_id`);
  // it is a key, not a value, so it carries no event content.
  const property = error.keyword === 'additionalProperties' ? ` (${clip(String(error.params['additionalProperty']))})` : '';
  return `does not match the contract at ${where}: ${error.message ?? error.keyword}${property}`;
}

function clip(text: string): string {
  return text.length <= MAX_DETAIL_CHARS ? text : `${text.slice(0, MAX_DETAIL_CHARS)}...`;
}
