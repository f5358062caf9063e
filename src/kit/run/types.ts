/**
 * The kit's vocabulary. A check is plain data, `{ id, level, title, run }`, and its run
 * returns an outcome value; nothing here throws to say "failed".
 */
import type { Exchange } from '../http';
import type { CheckContext } from './context';

/** `seed`: what the contract mandates. `reference`: what the reference server does (docs/reference-behaviour.md). */
export type Level = 'seed' | 'reference';
export const LEVELS: readonly Level[] = ['seed', 'reference'];

/** A report section: one per level, plus the differences found by `--compare`, or the entries of `--replay`. */
export type SuiteName = Level | 'compare' | 'replay';

/** One thing a check found wrong, with the exchange that shows it when there is one. */
export interface Finding {
  message: string;
  /** What the contract asks for, in words. */
  expected?: string;
  exchange?: Exchange;
}

export type CheckOutcome =
  | { status: 'passed'; details?: string }
  | { status: 'failed'; details?: string; findings: Finding[] }
  /** The check could not judge (no data for it, or the request budget ran out); never a failure. */
  | { status: 'skipped'; details: string }
  /** The server has no route for the operation the check needs (a plain 404 there); never a failure, always reported. */
  | { status: 'not-implemented'; details: string };

export interface Check {
  /** Stable id, used by `--allow` and in reports: `paging.exactly-once`, `ref.errors.limit-below-min`. */
  id: string;
  level: Level;
  /** What the server must do, as a sentence. */
  title: string;
  /** Audits run after every other check, because they judge the traffic the others caused. */
  audit?: boolean;
  /** Runs only with `--fixture`. */
  needsManifest?: boolean;
  run(context: CheckContext): Promise<CheckOutcome>;
}

export const passed = (details?: string): CheckOutcome => (details === undefined ? { status: 'passed' } : { status: 'passed', details });
export const skipped = (details: string): CheckOutcome => ({ status: 'skipped', details });
export const notImplemented = (details: string): CheckOutcome => ({ status: 'not-implemented', details });
export const failed = (findings: Finding[], details?: string): CheckOutcome =>
  details === undefined ? { status: 'failed', findings } : { status: 'failed', findings, details };

/** `1 event`, `2 events`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Passed when there are no findings, failed otherwise. */
export function verdict(findings: Finding[], details?: string): CheckOutcome {
  return findings.length === 0 ? passed(details) : failed(findings, details);
}
