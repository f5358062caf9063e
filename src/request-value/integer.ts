/**
 * Integers as pydantic 2 reads them from a string. pydantic-core trims Unicode White_Space
 * (Rust's `char::is_whitespace`: U+0085 is one and U+FEFF is not, unlike JavaScript's `\s`),
 * drops a `.000` fraction, and reads digits grouped by single underscores as Python's int()
 * does, after it strips leading zeros: a `0` and the zeros and underscores after it, up to the
 * last digit they are followed by, go first (so `0__1` is 1 and `0__0` is 0, though `1__0` is
 * no integer). Past 4300 characters (Python's conversion limit) in digits, a string that opens with a
 * JSON integer is `int_parsing_size`; anything else that long is `int_parsing`. Python's
 * integers have no bound, so the value is also given as its canonical digits, for a caller
 * that echoes a value beyond a double's exact range. Measured against the pydantic the pinned
 * reference runs (test/hardening/pydantic-parity.test.ts).
 */
export type IntegerParse = { ok: true; value: number; digits: string } | { ok: false; type: 'int_parsing' | 'int_parsing_size'; message: string };

const WHITE_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PYDANTIC_INTEGER = new RegExp(`^${WHITE_SPACE}*([+-]?)(?:0[0_]*(?=\\d))?(\\d+(?:_\\d+)*)(?:\\.0+)?${WHITE_SPACE}*$`);
const LEADING_JSON_INTEGER = /^-?(0|[1-9]\d*)/;
const MAX_DIGITS = 4300;

const NOT_AN_INTEGER = 'Input should be a valid integer, unable to parse string as an integer';
const TOO_LARGE = 'Unable to parse input string as an integer, exceeded maximum size';

/** Reads `raw` as pydantic reads an integer from a string: ` 5`, `100.0` and `1_0` are integers, `1e2` and `5.` are not. */
export function parseInteger(raw: string): IntegerParse {
  if ((LEADING_JSON_INTEGER.exec(raw)?.[1]?.length ?? 0) > MAX_DIGITS) return { ok: false, type: 'int_parsing_size', message: TOO_LARGE };
  const match = PYDANTIC_INTEGER.exec(raw);
  if (!match) return { ok: false, type: 'int_parsing', message: NOT_AN_INTEGER };
  const [, sign, grouped] = match as unknown as [string, string, string];
  const magnitude = grouped.replaceAll('_', '').replace(/^0+(?=\d)/, '');
  if (magnitude.length > MAX_DIGITS) return { ok: false, type: 'int_parsing', message: NOT_AN_INTEGER };
  const digits = sign === '-' && magnitude !== '0' ? `-${magnitude}` : magnitude;
  return { ok: true, value: Number(digits), digits };
}
