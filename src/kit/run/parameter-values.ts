/**
 * Request values generated from a parameter's schema, as the contract declares it: values it
 * must accept (within the bounds, exclusive ones included; enum members; formats; defaults)
 * and values it must reject (each bound one step outside, the wrong type, a malformed
 * format, an unknown enum member). Values are strings, as they travel in a path or a query.
 */
import fc from 'fast-check';
import type { ParameterSchema } from '../../contract';
import { enumValues, integerBounds } from '../search-contract';

/** An integer parameter without bounds is drawn from this range: enough to reach both signs without overflowing a server's integers. */
const UNBOUNDED_INTEGER = 1_000_000;

/** A value of the schema, as it would be written in a request; `undefined` for null, which a query cannot carry (the parameter is left out). */
export function validValue(schema: ParameterSchema): fc.Arbitrary<string | undefined> {
  const base = baseValue(schema);
  return schema.default === undefined || schema.default === null ? base : fc.oneof(fc.constant(String(schema.default)), base);
}

function baseValue(schema: ParameterSchema): fc.Arbitrary<string | undefined> {
  const enumerated = enumValues(schema);
  if (enumerated.length > 0) return fc.constantFrom(...enumerated.map((value) => (value === null ? undefined : String(value))));
  if (schema.const !== undefined) return fc.constant(schema.const === null ? undefined : String(schema.const));
  const parts = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (parts.length > 0) return fc.oneof(...parts.map((part) => baseValue(part)));
  const types = typesOf(schema);
  const options = types.filter((type) => type !== 'null').map((type) => valueOfType(type, schema));
  if (options.length === 0) return fc.constant(undefined);
  return options.length === 1 ? options[0]! : fc.oneof(...options);
}

function valueOfType(type: string, schema: ParameterSchema): fc.Arbitrary<string | undefined> {
  switch (type) {
    case 'integer': {
      const bounds = integerBounds(schema);
      const min = Math.max(bounds.minimum, -UNBOUNDED_INTEGER);
      const max = Math.min(bounds.maximum, UNBOUNDED_INTEGER);
      // The bounds themselves are where servers go wrong: drawn as often as the rest.
      return fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max })).map(String);
    }
    case 'number': {
      const bounds = integerBounds(schema);
      return fc.integer({ min: Math.max(bounds.minimum, -UNBOUNDED_INTEGER), max: Math.min(bounds.maximum, UNBOUNDED_INTEGER) }).map(String);
    }
    case 'boolean':
      return fc.constantFrom('true', 'false');
    case 'string':
      return stringValue(schema);
    default:
      // Objects and arrays in a query need a serialisation style the contract does not use; left out.
      return fc.constant(undefined);
  }
}

function stringValue(schema: ParameterSchema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc
        .date({ min: new Date(Date.UTC(1970, 0, 1)), max: new Date(Date.UTC(2100, 0, 1)), noInvalidDate: true })
        .map((date) => date.toISOString());
    case 'date':
      return fc
        .date({ min: new Date(Date.UTC(1970, 0, 1)), max: new Date(Date.UTC(2100, 0, 1)), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10));
    default:
      break;
  }
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Math.max(minLength, 24);
  // Printable ASCII: what a client puts in a query; the path segments `.` and `..` would be resolved away by any URL parser.
  return fc.string({ unit: fc.constantFrom(...PRINTABLE), minLength, maxLength }).filter((text) => text !== '.' && text !== '..');
}

const PRINTABLE = [...Array.from({ length: 95 }, (_, index) => String.fromCharCode(32 + index))];

export interface InvalidValue {
  value: string;
  /** Why the contract rejects it, for titles and findings: `one above the maximum 100`. */
  why: string;
}

/** Values the schema rejects, each breaking one rule; none when the schema accepts any string. */
export function invalidValues(schema: ParameterSchema): InvalidValue[] {
  const types = typesOf(schema);
  const values: InvalidValue[] = [];
  const enumerated = enumValues(schema).filter((value) => value !== null);
  if (enumerated.length > 0) {
    values.push({ value: 'not-one-of-the-enum', why: `not one of ${enumerated.map((value) => JSON.stringify(value)).join(', ')}` });
    return values;
  }
  if (types.includes('string')) {
    if (schema.format === 'uuid') values.push({ value: 'not-a-uuid', why: 'not a UUID' });
    if (schema.format === 'date-time') {
      values.push({ value: 'not-a-date', why: 'not a date-time' });
      values.push({ value: '2024-02-30T00:00:00Z', why: 'a date-time on 30 February' });
    }
    if (schema.format === 'date') values.push({ value: '2024-13-01', why: 'a date in month 13' });
    if (typeof schema.maxLength === 'number')
      values.push({ value: 'x'.repeat(schema.maxLength + 1), why: `one character over maxLength ${schema.maxLength}` });
    if (typeof schema.minLength === 'number' && schema.minLength > 1)
      values.push({ value: 'x'.repeat(schema.minLength - 1), why: `one character under minLength ${schema.minLength}` });
    return values;
  }
  if (types.includes('integer') || types.includes('number')) {
    const bounds = integerBounds(schema);
    if (types.includes('integer') && bounds.minimumKeyword)
      values.push({ value: String(bounds.minimum - 1), why: `one below the ${bounds.minimumKeyword} ${String(schema[bounds.minimumKeyword])}` });
    if (types.includes('integer') && bounds.maximumKeyword)
      values.push({ value: String(bounds.maximum + 1), why: `one above the ${bounds.maximumKeyword} ${String(schema[bounds.maximumKeyword])}` });
    if (types.includes('integer')) values.push({ value: `${Math.max(bounds.minimum, 0)}.5`, why: 'not a whole number' });
    values.push({ value: 'not-a-number', why: 'not a number' });
  }
  if (types.includes('boolean')) values.push({ value: 'not-a-boolean', why: 'not a boolean' });
  return values;
}

function typesOf(schema: ParameterSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  return ['string'];
}
