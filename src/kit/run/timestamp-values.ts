/**
 * Filter values built from stored timestamps. The reference stores naive local time and
 * reads a naive filter value as server local time; a zoned value is converted
 * (docs/reference-behaviour.md, "Search"). The kit cannot know the server's zone, so it assumes its own:
 * run it in the server's zone (same machine, or `TZ=...`), see docs/contract-kit.md.
 */
import { instantOf } from './instants';

// A zone follows the time of day; `2026-06-16` alone ends in `-16`, which is not one.
const HAS_ZONE = /\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;

export function hasZone(timestamp: string): boolean {
  return HAS_ZONE.test(timestamp);
}

/** A stored timestamp with the kit's local offset appended (`...701247+02:00`), or as it is when zoned or date-only. */
export function withLocalOffset(timestamp: string): string {
  if (hasZone(timestamp) || !/\d{2}:\d{2}/.test(timestamp)) return timestamp;
  const micros = instantOf(timestamp);
  return micros === undefined ? timestamp : `${timestamp}${localOffsetAt(micros)}`;
}

/** The same instant in UTC with all six fraction digits: `2026-06-16T03:39:48.701247Z`. */
export function utcForm(micros: number): string {
  const fraction = ((micros % 1_000_000) + 1_000_000) % 1_000_000;
  const wholeSeconds = (micros - fraction) / 1_000_000;
  const base = new Date(wholeSeconds * 1000).toISOString().slice(0, 19);
  return `${base}.${String(fraction).padStart(6, '0')}Z`;
}

/** The kit's UTC offset at an instant, as `+HH:MM`. */
export function localOffsetAt(micros: number): string {
  const minutesEast = -new Date(Math.floor(micros / 1000)).getTimezoneOffset();
  const sign = minutesEast < 0 ? '-' : '+';
  const absolute = Math.abs(minutesEast);
  return `${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}:${String(absolute % 60).padStart(2, '0')}`;
}
