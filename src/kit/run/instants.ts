/**
 * The kit's own reading of timestamps, written apart from src/search on purpose: the
 * oracle must not share a bug with the code it judges. One pattern covers every form the
 * kit sends or reads (stored values, the filter forms of ref.accepts.timestamp-forms);
 * calendar validity comes from a round trip through Date.UTC instead of a days-in-month
 * table, and naive values are placed in local time by Date's own local constructor.
 * Instants are whole microseconds since the epoch, because Date keeps only milliseconds.
 */

const DATE_TIME =
  /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})(?:[Tt_ ](?<hour>\d{2}):(?<minute>\d{2})(?::(?<second>\d{2})(?:[.,](?<fraction>\d+))?)?(?<zone>[zZ]|[+-]\d{2}(?::?\d{2})?)?)?$/;
const UNIX_NUMBER = /^-?\d+(?:\.\d+)?$/;
/** Above this many units a unix number is read as milliseconds, as pydantic does. */
const MILLISECONDS_ABOVE = 2e10;

/**
 * The instant a timestamp names, in microseconds; undefined when it is not one the kit
 * can read. Naive values are the kit's local time (see docs/contract-kit.md, time zones).
 */
export function instantOf(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  if (UNIX_NUMBER.test(text)) {
    const units = Number(text);
    const seconds = Math.abs(units) > MILLISECONDS_ABOVE ? units / 1000 : units;
    return Math.round(seconds * 1_000_000);
  }
  const groups = DATE_TIME.exec(text)?.groups;
  if (!groups) return undefined;
  const [year, month, day] = [groups['year'], groups['month'], groups['day']].map(Number) as [number, number, number];
  const [hour, minute, second] = [groups['hour'], groups['minute'], groups['second']].map((part) => Number(part ?? 0)) as [number, number, number];
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const asUtc = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  asUtc.setUTCFullYear(year);
  if (asUtc.getUTCMonth() !== month - 1 || asUtc.getUTCDate() !== day) return undefined;
  const extraMicros = Number((groups['fraction'] ?? '').slice(0, 6).padEnd(6, '0'));
  const zone = groups['zone'];
  const epochMillis =
    zone === undefined ? localWallClockMillis(year, month, day, hour, minute, second) : asUtc.getTime() - zoneMinutes(zone) * 60_000;
  return epochMillis * 1000 + extraMicros;
}

function localWallClockMillis(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const local = new Date(2000, month - 1, day, hour, minute, second);
  local.setFullYear(year, month - 1, day);
  return local.getTime();
}

function zoneMinutes(zone: string): number {
  if (zone === 'Z' || zone === 'z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
  return zone.startsWith('-') ? -minutes : minutes;
}
