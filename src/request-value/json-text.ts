/**
 * JSON text read as the reference reads a request body or a socket frame: Python's `json`
 * module, as the Python the pinned reference runs on words its errors. JavaScript's JSON.parse accepts and rejects the
 * same texts for the most part, but a client of the reference sees Python's wording and the
 * position where Python stopped (in characters), in a 422's `json_invalid` item and in a
 * socket's `JSONDecodeError` frame, so a failure is located here the way Python's decoder
 * locates it. Python also reads `NaN`, `Infinity` and `-Infinity`; they are read here too.
 */
export type JsonTextParse =
  | { ok: true; value: unknown }
  | { ok: false; message: string; position: number; text: string }
  | { ok: false; tooDeep: RecursionErrorText };

/**
 * Python's decoder recurses once per array or object and gives up past its recursion limit
 * with a `RecursionError`, not a `JSONDecodeError`: the reference answers a body that deep with
 * a 400 and a socket frame that deep with an error frame naming `RecursionError`. Measured
 * on the Python the pinned reference runs: 9998 nested arrays or objects parse, one more does not.
 */
export const MAX_JSON_NESTING = 9998;

/** `str()` of the `RecursionError` Python's decoder raises, naming the kind of value it was decoding. */
export type RecursionErrorText = `maximum recursion depth exceeded while decoding a JSON ${'array' | 'object'} from a unicode string`;

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

class NestedTooDeep {
  constructor(readonly text: RecursionErrorText) {}
}

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
    if (error instanceof NestedTooDeep) return { ok: false, tooDeep: error.text };
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

/** A number, a literal or a string starting at `at`: every value that holds no other. */
function readScalar(chars: string[], at: number): [unknown, number] {
  const char = chars[at];
  if (char === '"') return readString(chars, at);
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

/** An array or object being read: the values read so far, and for an object the key of the value being read. */
type OpenContainer = { kind: 'array'; items: unknown[] } | { kind: 'object'; members: Record<string, unknown>; key: string };

/**
 * The value starting at `at`, read with a stack of the containers open around it rather than
 * by recursion, so no nesting exhausts the call stack; past Python's limit it stops as
 * Python's decoder does. Failures are Python's messages at Python's positions.
 */
function readValue(chars: string[], at: number): [unknown, number] {
  const open: OpenContainer[] = [];
  for (;;) {
    // Read a value, or open a container and read its first member's position.
    let value: unknown;
    let end: number;
    const char = chars[at];
    if (char === '[' || char === '{') {
      if (open.length >= MAX_JSON_NESTING)
        throw new NestedTooDeep(`maximum recursion depth exceeded while decoding a JSON ${char === '[' ? 'array' : 'object'} from a unicode string`);
      const first = skipSpace(chars, at + 1);
      if (char === '[') {
        if (chars[first] !== ']') {
          open.push({ kind: 'array', items: [] });
          at = first;
          continue;
        }
        [value, end] = [[], first + 1];
      } else {
        if (chars[first] !== '}') {
          const members: Record<string, unknown> = {};
          open.push({ kind: 'object', members, key: '' });
          at = readKey(chars, first, open[open.length - 1] as OpenContainer & { kind: 'object' });
          continue;
        }
        [value, end] = [{}, first + 1];
      }
    } else {
      [value, end] = readScalar(chars, at);
    }
    // Hand the value to the containers it closes, up to one that takes another member.
    for (;;) {
      const container = open[open.length - 1];
      if (!container) return [value, end];
      if (container.kind === 'array') container.items.push(value);
      else Object.defineProperty(container.members, container.key, { value, enumerable: true, writable: true, configurable: true });
      const close = container.kind === 'array' ? ']' : '}';
      at = skipSpace(chars, end);
      if (chars[at] === close) {
        open.pop();
        value = container.kind === 'array' ? container.items : container.members;
        end = at + 1;
        continue;
      }
      if (chars[at] !== ',') throw new JsonFailure("Expecting ',' delimiter", at);
      const comma = at;
      at = skipSpace(chars, at + 1);
      if (chars[at] === close) throw new JsonFailure(`Illegal trailing comma before end of ${container.kind}`, comma);
      if (container.kind === 'object') at = readKey(chars, at, container);
      break;
    }
  }
}

/** Reads an object's key and its colon into `container`; the position of its value. */
function readKey(chars: string[], at: number, container: OpenContainer & { kind: 'object' }): number {
  if (chars[at] !== '"') throw new JsonFailure('Expecting property name enclosed in double quotes', at);
  const [key, keyEnd] = readString(chars, at);
  const colon = skipSpace(chars, keyEnd);
  if (chars[colon] !== ':') throw new JsonFailure("Expecting ':' delimiter", colon);
  container.key = key;
  return skipSpace(chars, colon + 1);
}
