/**
 * Request values generated from a parameter's schema, as the contract declares it: values it
 * must accept (within the bounds, exclusive ones included; enum members; formats; defaults)
 * and values it must reject (each bound one step outside, the wrong type, a malformed
 * format, an unknown enum member). Values are strings, as they travel in a path or a query.
 * `valueProblem` is the same rules read the other way, for a value a client sent: it names
 * what breaks one of them, and lets pass every spelling the reference's parser accepts
 * (spaces around a number, `100.0`, a UUID without hyphens), so it only speaks of values the
 * run itself would send as invalid.
 */
import fc from 'fast-check';
import type { ParameterSchema } from '../contract';
import { enumValues, integerBounds } from './search-contract';

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

/** Spellings of a boolean that pydantic's lax mode, and so the reference, reads. */
const BOOLEAN_SPELLINGS = new Set(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off', 't', 'f', 'y', 'n']);
const UUID_HEX = /^[0-9a-f]{32}$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?\s*(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/** What about `value` breaks a rule of the schema, as `invalidValues` would say it; undefined when nothing does. */
export function valueProblem(schema: ParameterSchema, value: string): string | undefined {
  const parts = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (parts.length > 0) {
    const problems = parts.filter((part) => !typesOf(part).every((type) => type === 'null')).map((part) => valueProblem(part, value));
    return problems.includes(undefined) ? undefined : problems[0];
  }
  const enumerated = enumValues(schema).filter((member) => member !== null);
  if (enumerated.length > 0)
    return enumerated.some((member) => String(member) === value)
      ? undefined
      : `not one of ${enumerated.map((member) => JSON.stringify(member)).join(', ')}`;
  const types = typesOf(schema);
  if (types.includes('string')) return stringProblem(schema, value);
  if (types.includes('integer') || types.includes('number')) return numberProblem(schema, types.includes('integer'), value);
  if (types.includes('boolean') && !BOOLEAN_SPELLINGS.has(value.trim().toLowerCase())) return 'not a boolean';
  return undefined;
}

function stringProblem(schema: ParameterSchema, value: string): string | undefined {
  if (
    schema.format === 'uuid' &&
    !UUID_HEX.test(
      value
        .replace(/^urn:uuid:/i, '')
        .replace(/^\{(.*)\}$/, '$1')
        .replaceAll('-', ''),
    )
  )
    return 'not a UUID';
  if (schema.format === 'date-time' && !/^\s*[+-]?\d+(\.\d+)?\s*$/.test(value) && !isCalendarTime(DATE_TIME.exec(value.trim())))
    return 'not a date-time';
  if (schema.format === 'date' && !isCalendarTime(DATE.exec(value.trim()))) return 'not a date';
  if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) return `longer than maxLength ${schema.maxLength}`;
  if (typeof schema.minLength === 'number' && value.length < schema.minLength) return `shorter than minLength ${schema.minLength}`;
  return undefined;
}

function numberProblem(schema: ParameterSchema, integer: boolean, value: string): string | undefined {
  const trimmed = value.trim();
  const number = trimmed === '' ? Number.NaN : Number(trimmed);
  if (!Number.isFinite(number)) return 'not a number';
  if (integer && !Number.isInteger(number)) return 'not a whole number';
  const bounds = integerBounds(schema);
  if (number < bounds.minimum)
    return bounds.minimumKeyword === 'exclusiveMinimum'
      ? `not above the exclusiveMinimum ${schema.exclusiveMinimum}`
      : `below the minimum ${schema.minimum}`;
  if (number > bounds.maximum)
    return bounds.maximumKeyword === 'exclusiveMaximum'
      ? `not below the exclusiveMaximum ${schema.exclusiveMaximum}`
      : `above the maximum ${schema.maximum}`;
  return undefined;
}

/** A date (and time) whose fields name a real moment: no 30 February, no hour 24. */
function isCalendarTime(match: RegExpExecArray | null): boolean {
  if (!match) return false;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1).map((field) => (field === undefined ? undefined : Number(field)));
  const date = new Date(Date.UTC(year!, month! - 1, day!));
  return date.getUTCMonth() === month! - 1 && date.getUTCDate() === day! && hour < 24 && minute < 60 && second < 60;
}
