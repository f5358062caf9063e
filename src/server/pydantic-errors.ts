import { looksSecret } from '../secrets';
import type { ValidationError } from '../contract';
import { parseFilterTimestamp } from '../search/timestamps';
import { parseUuid } from '../search/uuid';
import type { ParameterSpec } from './parameters';
import type { ValueParse } from './parsed-values';

/**
 * Describes why a parameter failed, in pydantic's words (docs/reference-behaviour.md, "Accepted values and errors"), from
 * the parameter's schema in the contract and the raw value the client sent. The
 * validator decides *whether* a parameter failed; this decides what to say. An id or a
 * timestamp comes with its `reading` when the request's was already parsed (parsed-values.ts).
 */
export function describeInvalidParameter(
  parameter: ParameterSpec,
  raw: string | undefined,
  reading?: ValueParse,
  values: readonly string[] = [],
): ValidationError {
  const loc = [parameter.in, parameter.name];
  if (raw === undefined && parameter.required) return { type: 'missing', loc, msg: 'Field required', input: null };
  if (parameter.schema.type === 'array') return describeInvalidList(parameter, values, loc);
  return describeInvalidValue(parameter.name, parameter.schema, raw ?? '', loc, reading);
}

/** A list parameter: too many items (`too_long`), else its first item that fails, located by index. */
function describeInvalidList(parameter: ParameterSpec, values: readonly string[], loc: (string | number)[]): ValidationError {
  const { maxItems, items } = parameter.schema;
  if (maxItems !== undefined && values.length > maxItems) {
    return {
      type: 'too_long',
      loc,
      msg: `List should have at most ${maxItems} items after validation, not ${values.length}`,
      ctx: { field_type: 'List', max_length: maxItems, actual_length: values.length },
    };
  }
  const itemSchema = items ?? {};
  const failing = values.findIndex((value) => itemSchema.format === 'uuid' && !parseUuid(value).ok);
  const at = Math.max(0, failing);
  return describeInvalidValue(parameter.name, itemSchema, values[at] ?? '', [...loc, at]);
}

function describeInvalidValue(
  name: string,
  schema: ParameterSpec['schema'],
  raw: string,
  loc: (string | number)[],
  reading?: ValueParse,
): ValidationError {
  const input = looksSecret(name, raw) ? {} : { input: raw };

  if (schema.format === 'uuid') {
    const parsed = reading ?? parseUuid(raw);
    const error = parsed.ok ? 'invalid UUID' : parsed.message;
    return { type: 'uuid_parsing', loc, msg: `Input should be a valid UUID, ${error}`, ...input, ctx: { error } };
  }
  if (schema.format === 'date-time') {
    const parsed = reading ?? parseFilterTimestamp(raw);
    const error = parsed.ok ? 'invalid datetime' : parsed.message;
    return { type: 'datetime_from_date_parsing', loc, msg: `Input should be a valid datetime or date, ${error}`, ...input, ctx: { error } };
  }
  if (schema.type === 'integer') return describeInvalidInteger({ name, in: 'query', required: false, schema }, raw, loc, input);
  if (schema.type === 'boolean') return { type: 'bool_parsing', loc, msg: 'Input should be a valid boolean, unable to interpret input', ...input };
  if (schema.enum) {
    const expected = listInWords(schema.enum.map((value) => `'${value}'`));
    return { type: 'enum', loc, msg: `Input should be ${expected}`, ...input, ctx: { expected } };
  }
  return { type: 'value_error', loc, msg: 'Value error, invalid value', ...input };
}

// pydantic-core trims Unicode White_Space (Rust's `char::is_whitespace`: U+0085 is one and
// U+FEFF is not, unlike JavaScript's `\s`), drops a `.000` fraction, and reads digits grouped
// by single underscores as Python's int() does. Past 4300 characters (Python's conversion
// limit) in digits, a string that opens with a JSON integer is `int_parsing_size`; anything else
// that long is `int_parsing`. Measured against the pydantic the pinned reference runs
// (test/hardening/pydantic-parity.test.ts).
const WHITE_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PYDANTIC_INTEGER = new RegExp(`^${WHITE_SPACE}*([+-]?)(\\d+(?:_\\d+)*)(?:\\.0+)?${WHITE_SPACE}*$`);
const LEADING_JSON_INTEGER = /^-?(0|[1-9]\d*)/;
const MAX_DIGITS = 4300;

type IntegerReading = { ok: true; value: number } | { ok: false; type: 'int_parsing' | 'int_parsing_size' };

function readPydanticInteger(raw: string): IntegerReading {
  if ((LEADING_JSON_INTEGER.exec(raw)?.[1]?.length ?? 0) > MAX_DIGITS) return { ok: false, type: 'int_parsing_size' };
  const match = PYDANTIC_INTEGER.exec(raw);
  if (!match) return { ok: false, type: 'int_parsing' };
  const [, sign, grouped] = match as unknown as [string, string, string];
  const digits = grouped.replaceAll('_', '').replace(/^0+(?=\d)/, '');
  if (digits.length > MAX_DIGITS) return { ok: false, type: 'int_parsing' };
  return { ok: true, value: Number(sign + digits) };
}

/** The integer pydantic reads from a query string: ` 5`, `100.0` and `1_0` are integers, `1e2` and `5.` are not. */
export function parsePydanticInteger(raw: string): number | undefined {
  const reading = readPydanticInteger(raw);
  return reading.ok ? reading.value : undefined;
}

function describeInvalidInteger(parameter: ParameterSpec, raw: string, loc: (string | number)[], input: { input?: string }): ValidationError {
  const reading = readPydanticInteger(raw);
  const { exclusiveMinimum, maximum } = parameter.schema;
  if (!reading.ok && reading.type === 'int_parsing_size') {
    return { type: 'int_parsing_size', loc, msg: 'Unable to parse input string as an integer, exceeded maximum size', ...input };
  }
  if (!reading.ok) {
    return { type: 'int_parsing', loc, msg: 'Input should be a valid integer, unable to parse string as an integer', ...input };
  }
  const { value } = reading;
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
