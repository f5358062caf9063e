/**
 * JSON text read as the reference reads a request body or a socket frame: Python's `json`
 * module, as the Python the pinned reference runs on words its errors. JavaScript's JSON.parse accepts and rejects the
 * same texts for the most part, but a client of the reference sees Python's wording and the
 * position where Python stopped (in characters), in a 422's `json_invalid` item and in a
 * socket's `JSONDecodeError` frame, so a failure is located here the way Python's decoder
 * locates it. Python also reads `NaN`, `Infinity` and `-Infinity`; they are read here too.
 */
export type JsonTextParse = { ok: true; value: unknown } | { ok: false; message: string; position: number; text: string };

const WHITE_SPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/;
const LITERALS: readonly [string, unknown][] = [
  ['null', null],
  ['true', true],
  ['false', false],
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['-Infinity', Number.NEGATIVE_INFINITY],
];

class JsonFailure {
  constructor(
    readonly message: string,
    readonly position: number,
  ) {}
}

/** Parses `text` as Python's `json.loads` does; a failure carries Python's message and position. */
export function parseJsonText(text: string): JsonTextParse {
  const chars = Array.from(text);
  try {
    const [value, end] = readValue(chars, skipSpace(chars, 0));
    const after = skipSpace(chars, end);
    if (after !== chars.length) throw new JsonFailure('Extra data', after);
    return { ok: true, value };
  } catch (error) {
    if (!(error instanceof JsonFailure)) throw error;
    return { ok: false, message: error.message, position: error.position, text };
  }
}

/** Python's `str(JSONDecodeError)`: the message, then the line, column and character where it stopped. */
export function jsonDecodeErrorText(failure: { message: string; position: number; text: string }): string {
  const before = Array.from(failure.text).slice(0, failure.position);
  const lastNewline = before.lastIndexOf('\n');
  const line = before.filter((char) => char === '\n').length + 1;
  return `${failure.message}: line ${line} column ${failure.position - lastNewline} (char ${failure.position})`;
}

function skipSpace(chars: string[], at: number): number {
  while (at < chars.length && WHITE_SPACE.has(chars[at]!)) at++;
  return at;
}

function readValue(chars: string[], at: number): [unknown, number] {
  const char = chars[at];
  if (char === '"') return readString(chars, at);
  if (char === '{') return readObject(chars, at);
  if (char === '[') return readArray(chars, at);
  const rest = chars.slice(at, at + 32).join('');
  if (char !== undefined && (char === '-' || (char >= '0' && char <= '9'))) {
    // A number's text ends at the first character that cannot continue it.
    let end = at + 1;
    while (end < chars.length && /[0-9eE+\-.]/.test(chars[end]!)) end++;
    const whole = NUMBER.exec(chars.slice(at, end).join(''))?.[0];
    if (whole) return [Number(whole), at + whole.length];
  }
  for (const [word, value] of LITERALS) if (rest.startsWith(word)) return [value, at + word.length];
  throw new JsonFailure('Expecting value', at);
}

function readString(chars: string[], start: number): [string, number] {
  let value = '';
  let at = start + 1;
  for (;;) {
    const char = chars[at];
    if (char === undefined) throw new JsonFailure('Unterminated string starting at', start);
    if (char === '"') return [value, at + 1];
    if (char.codePointAt(0)! < 0x20) throw new JsonFailure('Invalid control character at', at);
    if (char !== '\\') {
      value += char;
      at++;
      continue;
    }
    const escape = chars[at + 1];
    if (escape === undefined) throw new JsonFailure('Unterminated string starting at', start);
    const simple = SIMPLE_ESCAPES[escape];
    if (simple !== undefined) {
      value += simple;
      at += 2;
      continue;
    }
    if (escape !== 'u') throw new JsonFailure('Invalid \\escape', at);
    const hex = chars.slice(at + 2, at + 6).join('');
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new JsonFailure('Invalid \\uXXXX escape', at + 1);
    value += String.fromCharCode(Number.parseInt(hex, 16));
    at += 6;
  }
}

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

function readArray(chars: string[], start: number): [unknown[], number] {
  const items: unknown[] = [];
  let at = skipSpace(chars, start + 1);
  if (chars[at] === ']') return [items, at + 1];
  for (;;) {
    const [item, end] = readValue(chars, at);
    items.push(item);
    at = skipSpace(chars, end);
    if (chars[at] === ']') return [items, at + 1];
    if (chars[at] !== ',') throw new JsonFailure("Expecting ',' delimiter", at);
    const comma = at;
    at = skipSpace(chars, at + 1);
    if (chars[at] === ']') throw new JsonFailure('Illegal trailing comma before end of array', comma);
  }
}

function readObject(chars: string[], start: number): [Record<string, unknown>, number] {
  const members: Record<string, unknown> = {};
  let at = skipSpace(chars, start + 1);
  if (chars[at] === '}') return [members, at + 1];
  for (;;) {
    if (chars[at] !== '"') throw new JsonFailure('Expecting property name enclosed in double quotes', at);
    const [key, keyEnd] = readString(chars, at);
    at = skipSpace(chars, keyEnd);
    if (chars[at] !== ':') throw new JsonFailure("Expecting ':' delimiter", at);
    const [value, end] = readValue(chars, skipSpace(chars, at + 1));
    Object.defineProperty(members, key, { value, enumerable: true, writable: true, configurable: true });
    at = skipSpace(chars, end);
    if (chars[at] === '}') return [members, at + 1];
    if (chars[at] !== ',') throw new JsonFailure("Expecting ',' delimiter", at);
    const comma = at;
    at = skipSpace(chars, at + 1);
    if (chars[at] === '}') throw new JsonFailure('Illegal trailing comma before end of object', comma);
  }
}
