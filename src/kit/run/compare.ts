/**
 * `--compare URL2`: every request the checks send to the server under test is sent, as
 * it is, to a second server too, and the two responses are compared (status, then the
 * JSON body, a file's content, else the text). Done as the run goes, so no bodies are kept for later.
 * A difference is kept once, with how many requests showed it: the same operation differing in
 * the same place (statuses, or a JSON path with array positions and values aside) is one difference.
 */
import { isDeepStrictEqual } from 'node:util';
import type { OpenApiDocument } from '../../contract';
import { excerptOf, slim, type Exchange, type Transport } from '../http';
import { zipDifference, zipEntries } from '../zip-entries';

export interface Difference {
  /** The check whose request first showed it. */
  checkId: string;
  first: Exchange;
  /** Undefined when the second server gave no response. */
  second: Exchange | undefined;
  description: string;
  /** Requests that showed this same difference, this one included. */
  requests: number;
  /** Every check whose requests showed it, the first one first. */
  checkIds: string[];
}

export interface Mirror {
  observe(exchange: Exchange): Promise<void>;
  /** Each difference once, however many requests showed it. */
  readonly differences: readonly Difference[];
  /** Checks that sent requests, in order, so each gets a compare verdict even without differences. */
  readonly checkIds: readonly string[];
}

/** Names the two servers in what the mirror reports. */
export interface ServerNames {
  first: string;
  second: string;
}

const DEFAULT_NAMES: ServerNames = { first: 'the first server', second: 'the second server' };
/** Distinct differences kept; past it they are still counted under the ones kept. */
const KEPT_DIFFERENCES = 200;
const OVERFLOW_KEY = 'more differences';

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

/**
 * `operationOf` groups requests by what they ask for (the contract's operationId), so one
 * difference of one operation is one entry whatever the ids and values of each request.
 */
export function createMirror(
  second: Transport,
  setValued: ReadonlySet<string> = new Set(),
  options: { names?: ServerNames; operationOf?: (method: string, path: string) => string | undefined } = {},
): Mirror {
  const names = options.names ?? DEFAULT_NAMES;
  const differences: Difference[] = [];
  const byKey = new Map<string, Difference>();
  const checkIds: string[] = [];
  return {
    async observe(first) {
      if (!checkIds.includes(first.checkId)) checkIds.push(first.checkId);
      second.setCheck(first.checkId);
      const result = first.method === 'GET' ? await second.get(first.path, first.requestBody) : await second.request(first.method, first.path);
      const found = result.ok
        ? differenceOf(first, result.exchange, setValued, names)
        : { key: 'no response', text: `${names.second} gave no response: ${result.failure.message}` };
      if (found === undefined) return;
      const operation = options.operationOf?.(first.method, first.path.split('?')[0]!) ?? `${first.method} ${first.path.split('?')[0]}`;
      let key = `${operation}\n${found.key}`;
      if (!byKey.has(key) && byKey.size >= KEPT_DIFFERENCES) key = OVERFLOW_KEY;
      const known = byKey.get(key);
      if (known) {
        known.requests += 1;
        if (!known.checkIds.includes(first.checkId)) known.checkIds.push(first.checkId);
        return;
      }
      const difference: Difference = {
        checkId: first.checkId,
        first: slim(first),
        second: result.ok ? slim(result.exchange) : undefined,
        description: key === OVERFLOW_KEY ? `${found.text} (and further differences not kept)` : found.text,
        requests: 1,
        checkIds: [first.checkId],
      };
      byKey.set(key, difference);
      differences.push(difference);
    },
    differences,
    checkIds,
  };
}

/** What differs between two responses to the same request, or undefined when nothing does. */
export function describeDifference(
  first: Exchange,
  second: Exchange,
  setValued: ReadonlySet<string> = new Set(),
  names: ServerNames = DEFAULT_NAMES,
): string | undefined {
  return differenceOf(first, second, setValued, names)?.text;
}

/**
 * The difference as text, and as a key that is the same for the same difference in another
 * request: array positions and the values themselves left out, the place and the statuses kept.
 */
function differenceOf(
  first: Exchange,
  second: Exchange,
  setValued: ReadonlySet<string>,
  names: ServerNames,
): { key: string; text: string } | undefined {
  if (first.status !== second.status) {
    return {
      key: `status ${first.status} vs ${second.status}`,
      text: `status ${first.status} from ${names.first}, ${second.status} from ${names.second} (${excerptOf(second, 200)})`,
    };
  }
  if (first.bodyBytes && second.bodyBytes) {
    const text = fileDifference(first.bodyBytes, second.bodyBytes);
    return text === undefined ? undefined : { key: text, text };
  }
  if (first.json.ok && second.json.ok) {
    const where = firstDifference(first.json.value, second.json.value, '$', setValued);
    if (where === undefined) return undefined;
    const place = where.slice(0, where.indexOf(':') === -1 ? undefined : where.indexOf(':'));
    return { key: `body at ${place.replace(/\[\d+\]/g, '[*]')}`, text: `bodies differ at ${where}; values from ${names.first} vs ${names.second}` };
  }
  if (first.bodyText === second.bodyText) return undefined;
  return {
    key: 'body text',
    text: `bodies differ (${excerptOf(first, 120)} from ${names.first} vs ${excerptOf(second, 120)} from ${names.second})`,
  };
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
