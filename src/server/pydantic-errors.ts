import type { ValidationError } from '../contract';
import { parseFilterTimestamp } from '../search/timestamps';
import { parseUuid } from '../search/uuid';
import type { ParameterSpec } from './parameters';

/**
 * Describes why a parameter failed, in pydantic's words (REFERENCE.md section 3), from
 * the parameter's schema in the contract and the raw value the client sent. The
 * validator decides *whether* a parameter failed; this decides what to say.
 */
export function describeInvalidParameter(parameter: ParameterSpec, raw: string): ValidationError {
  const loc = [parameter.in, parameter.name];
  const input = looksSecret(parameter.name, raw) ? {} : { input: raw };
  const { schema } = parameter;

  if (schema.format === 'uuid') {
    const parsed = parseUuid(raw);
    const error = parsed.ok ? 'invalid UUID' : parsed.message;
    return { type: 'uuid_parsing', loc, msg: `Input should be a valid UUID, ${error}`, ...input, ctx: { error } };
  }
  if (schema.format === 'date-time') {
    const parsed = parseFilterTimestamp(raw);
    const error = parsed.ok ? 'invalid datetime' : parsed.message;
    return { type: 'datetime_from_date_parsing', loc, msg: `Input should be a valid datetime or date, ${error}`, ...input, ctx: { error } };
  }
  if (schema.type === 'integer') return describeInvalidInteger(parameter, raw, loc, input);
  if (schema.enum) {
    const expected = listInWords(schema.enum.map((value) => `'${value}'`));
    return { type: 'enum', loc, msg: `Input should be ${expected}`, ...input, ctx: { expected } };
  }
  return { type: 'value_error', loc, msg: 'Value error, invalid value', ...input };
}

const PYDANTIC_INTEGER = /^\s*[+-]?\d+(\.0*)?\s*$/;

/** The integer pydantic reads from a query string: ` 5` and `100.0` are integers, `1e2` is not. */
export function parsePydanticInteger(raw: string): number | undefined {
  return PYDANTIC_INTEGER.test(raw) ? Math.trunc(Number(raw)) : undefined;
}

function describeInvalidInteger(parameter: ParameterSpec, raw: string, loc: string[], input: { input?: string }): ValidationError {
  const value = parsePydanticInteger(raw);
  const { exclusiveMinimum, maximum } = parameter.schema;
  if (value === undefined) {
    return { type: 'int_parsing', loc, msg: 'Input should be a valid integer, unable to parse string as an integer', ...input };
  }
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) {
    return { type: 'greater_than', loc, msg: `Input should be greater than ${exclusiveMinimum}`, ...input, ctx: { gt: exclusiveMinimum } };
  }
  if (maximum !== undefined && value > maximum) {
    return { type: 'less_than_equal', loc, msg: `Input should be less than or equal to ${maximum}`, ...input, ctx: { le: maximum } };
  }
  return { type: 'int_parsing', loc, msg: 'Input should be a valid integer', ...input };
}

function listInWords(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

const SECRET_NAME = /key|token|secret|password|passwd|auth|credential|session/i;
const SECRET_VALUE = /^(sk|pk|rk|ghp|gho|xox[abp])[-_][A-Za-z0-9_-]{8,}|^Bearer\s/;

/** The reference strips secrets from `input`; we do not echo a value that looks like one. */
export function looksSecret(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || SECRET_VALUE.test(value);
}
