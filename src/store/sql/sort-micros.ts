/**
 * The `sort_micros` column: an event's timestamp in microseconds as a bigint, and the
 * smallest bigint for an event without one, so that such events sort first as they do in
 * search order (compareEvents). Filter bounds are clamped into the column's range so that
 * every comparison gives the answer the in-memory search gives with doubles and -Infinity.
 */
import type { Micros } from '../../search';

const NO_TIMESTAMP = -(2n ** 63n);
const LARGEST = 2n ** 63n - 1n;

/** The column value of an event's timestamp, as the decimal text PostgreSQL reads. */
export function storedSortMicros(micros: Micros | undefined): string {
  if (micros === undefined || !Number.isFinite(micros)) return NO_TIMESTAMP.toString();
  return clamp(BigInt(Math.trunc(micros))).toString();
}

/**
 * A filter bound: every timestamp is above the smallest bigint, and an event without one
 * compares as -Infinity, below every bound (so `lt` keeps it and `gte` drops it).
 */
export function filterSortMicros(micros: Micros): string {
  if (Number.isNaN(micros)) throw new Error('A timestamp filter is not a number');
  if (micros === Infinity) return LARGEST.toString();
  if (micros === -Infinity) return (NO_TIMESTAMP + 1n).toString();
  return clamp(BigInt(Math.trunc(micros))).toString();
}

function clamp(value: bigint): bigint {
  if (value <= NO_TIMESTAMP) return NO_TIMESTAMP + 1n;
  return value > LARGEST ? LARGEST : value;
}
