/**
 * Instants as integers of microseconds since the epoch. JavaScript's Date keeps only
 * milliseconds, and the reference compares stored timestamps such as `.701247` and
 * `.701900` exactly (docs/reference-behaviour.md, "Search"), so the fraction is carried separately.
 *
 * Naive values (no zone) are server local time, as the reference stores them; zoned
 * values are converted, which is the same as comparing instants.
 */
export type Micros = number;

export type TimestampParse = { ok: true; micros: Micros } | { ok: false; message: string };

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  micro: number;
  /** Minutes east of UTC; undefined for a naive value. */
  offsetMinutes: number | undefined;
}

/**
 * Reads a stored event's timestamp (`2026-06-16T05:39:48.701247`, possibly zoned).
 * Returns undefined for anything that is not a date-time; such events sort first.
 */
export function storedTimestampMicros(value: unknown): Micros | undefined {
  if (typeof value !== 'string') return undefined;
  const stored = STORED_FORM.exec(value);
  if (stored) return storedFormMicros(stored);
  const parsed = parseDateTimeFields(value);
  return 'fields' in parsed ? toMicros(parsed.fields) : undefined;
}

/**
 * Reads a filter value the way pydantic reads a `datetime` query parameter: a date-time
 * with `T`, `t`, `_` or a space, seconds and fraction optional, an optional `Z` or
 * offset; a bare date (midnight); or unix seconds (milliseconds above 2e10). Failures
 * carry the message pydantic gives after "Input should be a valid datetime or date, ".
 */
export function parseFilterTimestamp(value: string): TimestampParse {
  if (/^-?\d+(\.\d+)?$/.test(value)) return fromUnixNumber(Number(value));
  const parsed = parseDateTimeFields(value);
  if ('fields' in parsed) return { ok: true, micros: toMicros(parsed.fields) };
  return { ok: false, message: parsed.error };
}

// What the reference writes: naive, seconds always, a fraction of up to six digits.
const STORED_FORM = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;

// Loading a conversation reads one timestamp per event, so its usual form skips the
// general parser. A match with a field out of range is not a date-time in either.
function storedFormMicros(match: RegExpExecArray): Micros | undefined {
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((group) => Number(match[group]));
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth(year!, month!) || hour! > 23 || minute! > 59 || second! > 59) {
    return undefined;
  }
  const micro = match[7] === undefined ? 0 : Number(match[7].padEnd(6, '0'));
  return toMicros({ year: year!, month: month!, day: day!, hour: hour!, minute: minute!, second: second!, micro, offsetMinutes: undefined });
}

function fromUnixNumber(seconds: number): TimestampParse {
  const asSeconds = Math.abs(seconds) > 2e10 ? seconds / 1000 : seconds;
  return { ok: true, micros: Math.round(asSeconds * 1e6) };
}

function toMicros(f: Fields): Micros {
  const wallMillis = civilToEpochDays(f.year, f.month, f.day) * 86_400_000 + ((f.hour * 60 + f.minute) * 60 + f.second) * 1000;
  const offsetMillis = f.offsetMinutes === undefined ? localOffsetMillis(f.year, f.month, f.day, f.hour) : f.offsetMinutes * 60_000;
  return (wallMillis - offsetMillis) * 1000 + f.micro;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function civilToEpochDays(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

// Asking Date for the zone offset costs more than everything else in reading a stored
// timestamp, and a conversation's events share a few hours, so offsets are kept per hour.
const offsetCache = new Map<number, number>();

/** How far the server's zone is ahead of UTC at a local wall-clock hour, in milliseconds. */
function localOffsetMillis(year: number, month: number, day: number, hour: number): number {
  const key = ((year * 100 + month) * 100 + day) * 100 + hour;
  let offset = offsetCache.get(key);
  if (offset === undefined) {
    // setFullYear, not the Date constructor: that reads years 0-99 as 1900-1999. The
    // difference of instants, not getTimezoneOffset, keeps offsets with seconds (old LMT).
    const local = new Date(0);
    local.setFullYear(year, month - 1, day);
    local.setHours(hour, 0, 0, 0);
    offset = civilToEpochDays(year, month, day) * 86_400_000 + hour * 3_600_000 - local.getTime();
    if (offsetCache.size > 100_000) offsetCache.clear();
    offsetCache.set(key, offset);
  }
  return offset;
}

type FieldsParse = { fields: Fields } | { error: string };

const DIGITS = (text: string) => /^\d+$/.test(text);
const EXTRA_CHARACTERS = 'unexpected extra characters at the end of the input';

function parseDateTimeFields(value: string): FieldsParse {
  if (value.length < 10) return { error: 'input is too short' };
  const date = parseDate(value);
  if ('error' in date) return date;
  const fields: Fields = { ...date, hour: 0, minute: 0, second: 0, micro: 0, offsetMinutes: undefined };
  if (value.length === 10) return { fields };
  if (!'Tt_ '.includes(value[10]!)) return { error: EXTRA_CHARACTERS };
  const parsed = parseTime(value, 11, fields);
  // pydantic explains a failed date-time by re-reading the input as a date (its fallback
  // for date-only values), so anything wrong after a valid date is reported this way.
  return 'error' in parsed ? { error: EXTRA_CHARACTERS } : parsed;
}

function parseDate(value: string): { year: number; month: number; day: number } | { error: string } {
  if (!DIGITS(value.slice(0, 4))) return { error: 'invalid character in year' };
  if (value[4] !== '-') return { error: 'invalid date separator, expected `-`' };
  if (!DIGITS(value.slice(5, 7))) return { error: 'invalid character in month' };
  if (value[7] !== '-') return { error: 'invalid date separator, expected `-`' };
  if (!DIGITS(value.slice(8, 10))) return { error: 'invalid character in day' };
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(5, 7));
  const day = Number(value.slice(8, 10));
  if (month < 1 || month > 12) return { error: 'month value is outside expected range of 1-12' };
  if (day < 1 || day > daysInMonth(year, month)) return { error: 'day value is outside expected range' };
  return { year, month, day };
}

function parseTime(value: string, start: number, fields: Fields): FieldsParse {
  if (value.length < start + 5) return { error: 'input is too short' };
  if (!DIGITS(value.slice(start, start + 2))) return { error: 'invalid character in hour' };
  if (value[start + 2] !== ':') return { error: 'invalid time separator, expected `:`' };
  if (!DIGITS(value.slice(start + 3, start + 5))) return { error: 'invalid character in minute' };
  fields.hour = Number(value.slice(start, start + 2));
  fields.minute = Number(value.slice(start + 3, start + 5));
  if (fields.hour > 23) return { error: 'hour value is outside expected range' };
  if (fields.minute > 59) return { error: 'minute value is outside expected range' };
  let at = start + 5;
  if (value[at] === ':') {
    if (!DIGITS(value.slice(at + 1, at + 3)) || value.length < at + 3) return { error: 'invalid character in second' };
    fields.second = Number(value.slice(at + 1, at + 3));
    if (fields.second > 59) return { error: 'second value is outside expected range' };
    at += 3;
    if (value[at] === '.' || value[at] === ',') {
      const digits = /^\d*/.exec(value.slice(at + 1))![0];
      if (digits.length === 0) return { error: 'invalid character in second fraction' };
      // pydantic's datetime default is microseconds_precision='truncate': `.1234567` is `.123456`.
      fields.micro = Number(digits.slice(0, 6).padEnd(6, '0'));
      at += 1 + digits.length;
    }
  }
  return parseOffset(value, at, fields);
}

function parseOffset(value: string, at: number, fields: Fields): FieldsParse {
  const rest = value.slice(at);
  if (rest === '') return { fields };
  if (rest === 'Z' || rest === 'z') return { fields: { ...fields, offsetMinutes: 0 } };
  if (rest[0] !== '+' && rest[0] !== '-') return { error: 'invalid timezone sign' };
  const match = /^([+-])(\d{2}):?(\d{2})?$/.exec(rest);
  if (!match) return { error: 'invalid timezone hour' };
  const hours = Number(match[2]);
  const minutes = Number(match[3] ?? '0');
  if (hours >= 24 || minutes > 59) return { error: 'timezone offset must be less than 24 hours' };
  const sign = match[1] === '-' ? -1 : 1;
  return { fields: { ...fields, offsetMinutes: sign * (hours * 60 + minutes) } };
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
