/**
 * `--compare URL2`: every request the checks send to the server under test is sent, as
 * it is, to a second server too, and the two responses are compared (status, then the
 * JSON body, else the text). Done as the run goes, so no bodies are kept for later.
 */
import { isDeepStrictEqual } from 'node:util';
import { excerptOf, slim, type Exchange, type Transport } from '../http';

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

export function createMirror(second: Transport): Mirror {
  const differences: Difference[] = [];
  const checkIds: string[] = [];
  const keptPerCheck = new Map<string, number>();
  return {
    async observe(first) {
      if (!checkIds.includes(first.checkId)) checkIds.push(first.checkId);
      second.setCheck(first.checkId);
      const result = await second.get(first.path);
      const description = result.ok ? describeDifference(first, result.exchange) : `the second server gave no response: ${result.failure.message}`;
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
export function describeDifference(first: Exchange, second: Exchange): string | undefined {
  if (first.status !== second.status) {
    return `status ${first.status} here, ${second.status} on the second server (${excerptOf(second, 200)})`;
  }
  if (first.json.ok && second.json.ok) {
    const where = firstDifference(first.json.value, second.json.value, '$');
    return where === undefined ? undefined : `bodies differ at ${where}`;
  }
  if (first.bodyText === second.bodyText) return undefined;
  return `bodies differ (${excerptOf(first, 120)} vs ${excerptOf(second, 120)})`;
}

/** The JSON path of the first place two values differ, with both values, or undefined. */
export function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let index = 0; index < Math.min(a.length, b.length); index++) {
      const inner = firstDifference(a[index], b[index], `${path}[${index}]`);
      if (inner) return inner;
    }
    return `${path}: ${a.length} items vs ${b.length}`;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(key in a)) return `${path}.${key}: missing vs ${brief(b[key])}`;
      if (!(key in b)) return `${path}.${key}: ${brief(a[key])} vs missing`;
      const inner = firstDifference(a[key], b[key], `${path}.${key}`);
      if (inner) return inner;
    }
  }
  return `${path}: ${brief(a)} vs ${brief(b)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}
