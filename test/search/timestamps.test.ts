import { type TimestampParse, parseFilterTimestamp, storedTimestampMicros } from '../../src/search';

/**
 * Microseconds of a naive date-time read as this process's local time, computed without the
 * code under test: ECMAScript reads an ISO date-time without an offset as local time.
 */
function localMicros(naive: string, fraction = 0): number {
  const millis = Date.parse(naive);
  if (Number.isNaN(millis)) throw new Error(`test bug: ${naive}`);
  return millis * 1000 + fraction;
}

const utcMicros = (iso: string, fraction = 0) => Date.parse(`${iso}Z`) * 1000 + fraction;

describe('parseFilterTimestamp: what the reference accepts (docs/reference-behaviour.md, "Accepted values and errors")', () => {
  const cases: Array<[string, { given: string; want: TimestampParse }]> = [
    ['a bare date is local midnight', { given: '2024-01-01', want: { ok: true, micros: localMicros('2024-01-01T00:00:00') } }],
    ['hours and minutes only', { given: '2024-01-01T00:00', want: { ok: true, micros: localMicros('2024-01-01T00:00:00') } }],
    ['a space as the separator', { given: '2024-01-01 00:00:00', want: { ok: true, micros: localMicros('2024-01-01T00:00:00') } }],
    ['naive with microseconds', { given: '2026-06-16T05:39:48.701247', want: { ok: true, micros: localMicros('2026-06-16T05:39:48', 701247) } }],
    [
      'a short fraction is padded, not read as microseconds',
      { given: '2026-06-16T05:39:48.7', want: { ok: true, micros: localMicros('2026-06-16T05:39:48', 700000) } },
    ],
    ['Z', { given: '2024-01-01T10:20:30Z', want: { ok: true, micros: utcMicros('2024-01-01T10:20:30') } }],
    ['Z with microseconds', { given: '2024-01-01T10:20:30.000001Z', want: { ok: true, micros: utcMicros('2024-01-01T10:20:30', 1) } }],
    ['+05:00', { given: '2024-01-01T10:20:30+05:00', want: { ok: true, micros: utcMicros('2024-01-01T05:20:30') } }],
    ['-02:30', { given: '2024-01-01T10:20:30-02:30', want: { ok: true, micros: utcMicros('2024-01-01T12:50:30') } }],
    ['unix seconds', { given: '1700000000', want: { ok: true, micros: 1_700_000_000_000_000 } }],
    ['lower-case t and underscore separators', { given: '2024-01-01t10:20:30', want: { ok: true, micros: localMicros('2024-01-01T10:20:30') } }],
    ['underscore separator', { given: '2024-01-01_10:20:30', want: { ok: true, micros: localMicros('2024-01-01T10:20:30') } }],
    ['a leap day', { given: '2024-02-29T00:00:00Z', want: { ok: true, micros: utcMicros('2024-02-29T00:00:00') } }],
    // pydantic's datetime_schema defaults to microseconds_precision='truncate'.
    [
      '7 fraction digits (.NET round-trip format) are truncated, not rounded',
      { given: '2026-06-16T05:39:48.7012479', want: { ok: true, micros: localMicros('2026-06-16T05:39:48', 701247) } },
    ],
    [
      '9 fraction digits with a zone',
      { given: '2024-01-01T10:20:30.999999999Z', want: { ok: true, micros: utcMicros('2024-01-01T10:20:30', 999999) } },
    ],
  ];
  it.each(cases)('accepts %s', (_name, { given, want }) => {
    expect(parseFilterTimestamp(given)).toEqual(want);
  });

  const rejected: Array<[string, { given: string; want: TimestampParse }]> = [
    ['garbage', { given: 'garbage', want: { ok: false, message: 'input is too short' } }],
    ['empty', { given: '', want: { ok: false, message: 'input is too short' } }],
    ['February 30th', { given: '2024-02-30T00:00:00', want: { ok: false, message: 'day value is outside expected range' } }],
    ['February 29th of a common year', { given: '2023-02-29', want: { ok: false, message: 'day value is outside expected range' } }],
    // The rows of pydantic's own test_datetime_parsing_from_str, and speedate's wording.
    ['a one-digit month', { given: '2012-4-9 4:8:16', want: { ok: false, message: 'invalid character in month' } }],
    ['a letter in the year', { given: 'x20120423091500', want: { ok: false, message: 'invalid character in year' } }],
    ['day 56', { given: '2012-04-56T09:15:90', want: { ok: false, message: 'day value is outside expected range' } }],
    [
      'an offset of 25 hours',
      { given: '2012-04-23T11:05:00-25:00', want: { ok: false, message: 'unexpected extra characters at the end of the input' } },
    ],
    ['infinity', { given: 'infinity', want: { ok: false, message: 'input is too short' } }],
    ['month 13', { given: '2024-13-01', want: { ok: false, message: 'month value is outside expected range of 1-12' } }],
    [
      'hour 25 after a valid date',
      { given: '2024-01-01T25:00:00', want: { ok: false, message: 'unexpected extra characters at the end of the input' } },
    ],
    ['a bare T after a valid date', { given: '2024-01-01T', want: { ok: false, message: 'unexpected extra characters at the end of the input' } }],
    [
      'a wrong separator after a valid date',
      { given: '2024-01-01X12:00:00', want: { ok: false, message: 'unexpected extra characters at the end of the input' } },
    ],
    ['hours only', { given: '2024-01-01T10', want: { ok: false, message: 'unexpected extra characters at the end of the input' } }],
  ];
  it.each(rejected)("rejects %s with pydantic's words", (_name, { given, want }) => {
    expect(parseFilterTimestamp(given)).toEqual(want);
  });

  it('keeps microseconds that share a millisecond apart', () => {
    const early = parseFilterTimestamp('2026-06-16T05:39:48.701247');
    const late = parseFilterTimestamp('2026-06-16T05:39:48.701900');
    expect(early.ok && late.ok && late.micros - early.micros).toBe(653);
  });

  it('a zoned value and the naive local value of the same instant are equal', () => {
    const naive = '2026-06-16T05:39:48.701247';
    const local = new Date(2026, 5, 16, 5, 39, 48);
    const offset = -local.getTimezoneOffset();
    const sign = offset < 0 ? '-' : '+';
    const hhmm = `${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`;
    expect(parseFilterTimestamp(`${naive}${sign}${hhmm}`)).toEqual(parseFilterTimestamp(naive));
  });

  it('reads years below 100 as those years, not as 19xx', () => {
    expect(parseFilterTimestamp('0050-03-01T00:00:00Z')).toEqual({ ok: true, micros: Date.parse('0050-03-01T00:00:00Z') * 1000 });
    expect(parseFilterTimestamp('0050-03-01T12:00:00')).toEqual({ ok: true, micros: Date.parse('0050-03-01T12:00:00') * 1000 });
  });
});

describe('storedTimestampMicros', () => {
  it.each([
    ['the reference form with microseconds', '2026-06-16T05:39:48.701247', localMicros('2026-06-16T05:39:48', 701247)],
    ['a whole second, fraction omitted', '2026-06-16T05:39:49', localMicros('2026-06-16T05:39:49')],
    ['a zoned value', '2026-06-16T05:39:49+02:00', utcMicros('2026-06-16T03:39:49')],
  ])('reads %s', (_name, given, want) => {
    expect(storedTimestampMicros(given)).toBe(want);
  });

  it.each([
    ['a number', 1700000000],
    ['missing', undefined],
    ['not a date', 'yesterday at noon'],
    ['an impossible date', '2026-02-30T00:00:00'],
  ])('gives undefined for %s', (_name, given) => {
    expect(storedTimestampMicros(given)).toBeUndefined();
  });
});
