import { looksSecret } from '../secrets';
import type { ValidationError } from '../contract';
import { BOOLEAN_PARSING_MESSAGE, parseFilterTimestamp, parseEnum, parseInteger, parseUuid } from '../request-value';
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
  if (schema.type === 'boolean') return { type: 'bool_parsing', loc, msg: BOOLEAN_PARSING_MESSAGE, ...input };
  if (schema.enum) {
    const parsed = parseEnum(schema.enum.map(String), raw);
    const expected = parsed.ok ? '' : parsed.expected;
    return { type: 'enum', loc, msg: `Input should be ${expected}`, ...input, ctx: { expected } };
  }
  return { type: 'value_error', loc, msg: 'Value error, invalid value', ...input };
}

/** The integer pydantic reads from a query string; undefined when it reads none. */
export function parsePydanticInteger(raw: string): number | undefined {
  const reading = parseInteger(raw);
  return reading.ok ? reading.value : undefined;
}

function describeInvalidInteger(parameter: ParameterSpec, raw: string, loc: (string | number)[], input: { input?: string }): ValidationError {
  const reading = parseInteger(raw);
  const { exclusiveMinimum, maximum } = parameter.schema;
  if (!reading.ok) return { type: reading.type, loc, msg: reading.message, ...input };
  const { value } = reading;
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) {
    return { type: 'greater_than', loc, msg: `Input should be greater than ${exclusiveMinimum}`, ...input, ctx: { gt: exclusiveMinimum } };
  }
  if (maximum !== undefined && value > maximum) {
    return { type: 'less_than_equal', loc, msg: `Input should be less than or equal to ${maximum}`, ...input, ctx: { le: maximum } };
  }
  return { type: 'int_parsing', loc, msg: 'Input should be a valid integer', ...input };
}
