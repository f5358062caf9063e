/**
 * `--compare URL2`: every request the checks send to the server under test is sent, as
 * it is, to a second server too, and the two responses are compared (status, then the
 * JSON body, a file's content, else the text). Done as the run goes, so no bodies are kept for later.
 */
import { isDeepStrictEqual } from 'node:util';
import type { OpenApiDocument } from '../../contract';
import { excerptOf, slim, type Exchange, type Transport } from '../http';
import { zipDifference, zipEntries } from '../zip-entries';

export interface Difference {
  checkId: string;
  first: Exchange;
  /** Undefined when the second server gave no response. */
  second: Exchange | undefined;
  description: string;
}

export interface Mirror {
  observe(exchange: Exchange): Promise<void>;
  readonly differences: readonly Difference[];
  /** Checks that sent requests, in order, so each gets a compare verdict even without differences. */
  readonly checkIds: readonly string[];
}

const KEPT_PER_CHECK = 10;

/**
 * Names of the properties the contract declares as sets (`uniqueItems: true` arrays): their
 * order carries no meaning, and the reference serves them in an order of its own.
 */
export function setValuedProperties(document: OpenApiDocument): ReadonlySet<string> {
  const names = new Set<string>();
  const visit = (schema: unknown): void => {
    if (Array.isArray(schema)) {
      schema.forEach(visit);
      return;
    }
    if (!isPlainObject(schema)) return;
    const properties = schema['properties'];
    if (isPlainObject(properties)) {
      for (const [name, property] of Object.entries(properties)) {
        if (isPlainObject(property) && property['uniqueItems'] === true) names.add(name);
      }
    }
    Object.values(schema).forEach(visit);
  };
  visit(document.components.schemas);
  return names;
}

export function createMirror(second: Transport, setValued: ReadonlySet<string> = new Set()): Mirror {
  const differences: Difference[] = [];
  const checkIds: string[] = [];
  const keptPerCheck = new Map<string, number>();
  return {
    async observe(first) {
      if (!checkIds.includes(first.checkId)) checkIds.push(first.checkId);
      second.setCheck(first.checkId);
      const result = first.method === 'GET' ? await second.get(first.path, first.requestBody) : await second.request(first.method, first.path);
      const description = result.ok
        ? describeDifference(first, result.exchange, setValued)
        : `the second server gave no response: ${result.failure.message}`;
      if (description === undefined) return;
      const kept = keptPerCheck.get(first.checkId) ?? 0;
      keptPerCheck.set(first.checkId, kept + 1);
      if (kept >= KEPT_PER_CHECK) return;
      differences.push({ checkId: first.checkId, first: slim(first), second: result.ok ? slim(result.exchange) : undefined, description });
    },
    differences,
    checkIds,
  };
}

/** What differs between two responses to the same request, or undefined when nothing does. */
export function describeDifference(first: Exchange, second: Exchange, setValued: ReadonlySet<string> = new Set()): string | undefined {
  if (first.status !== second.status) {
    return `status ${first.status} here, ${second.status} on the second server (${excerptOf(second, 200)})`;
  }
  if (first.bodyBytes && second.bodyBytes) return fileDifference(first.bodyBytes, second.bodyBytes);
  if (first.json.ok && second.json.ok) {
    const where = firstDifference(first.json.value, second.json.value, '$', setValued);
    return where === undefined ? undefined : `bodies differ at ${where}`;
  }
  if (first.bodyText === second.bodyText) return undefined;
  return `bodies differ (${excerptOf(first, 120)} vs ${excerptOf(second, 120)})`;
}

/**
 * Two files (responses that are neither text nor JSON): archives by their entries' names and
 * contents, since times and compression are each writer's own; any other file byte for byte.
 */
function fileDifference(first: Buffer, second: Buffer): string | undefined {
  const [a, b] = [zipEntries(first), zipEntries(second)];
  for (const [which, reading] of [
    ['here', a],
    ['on the second server', b],
  ] as const)
    if (reading && 'tooLarge' in reading) return `${which}, ${reading.tooLarge}`;
  if (Array.isArray(a) && Array.isArray(b)) return zipDifference(a, b);
  return first.equals(second) ? undefined : `files differ (${first.length} vs ${second.length} bytes)`;
}

/**
 * The JSON path of the first place two values differ, with both values, or undefined. Arrays
 * under a property named in `setValued` are compared in sorted order.
 */
export function firstDifference(a: unknown, b: unknown, path: string, setValued: ReadonlySet<string> = new Set()): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let index = 0; index < Math.min(a.length, b.length); index++) {
      const inner = firstDifference(a[index], b[index], `${path}[${index}]`, setValued);
      if (inner) return inner;
    }
    // Equal but for the order of a set somewhere inside.
    return a.length === b.length ? undefined : `${path}: ${a.length} items vs ${b.length}`;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(key in a)) return `${path}.${key}: missing vs ${brief(b[key])}`;
      if (!(key in b)) return `${path}.${key}: ${brief(a[key])} vs missing`;
      const [left, right] =
        setValued.has(key) && Array.isArray(a[key]) && Array.isArray(b[key]) ? [sorted(a[key]), sorted(b[key])] : [a[key], b[key]];
      const inner = firstDifference(left, right, `${path}.${key}`, setValued);
      if (inner) return inner;
    }
    return undefined;
  }
  return `${path}: ${brief(a)} vs ${brief(b)}`;
}

function sorted(values: unknown[]): unknown[] {
  return values
    .map((value) => ({ value, text: JSON.stringify(value) }))
    .sort((x, y) => (x.text < y.text ? -1 : x.text > y.text ? 1 : 0))
    .map(({ value }) => value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}
