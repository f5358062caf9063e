/**
 * Removes named members from the top level of a JSON object's text without parsing it
 * into values: a stored event loses its `parent_id` (or other properties the contract does
 * not list) at a fraction of the cost of serialising the whole event again, and every
 * other byte, number formats included, stays as stored.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * The object's text without its top-level members named in `names`, members joined by
 * single commas; undefined when the text is not a JSON object this scanner can follow
 * (the caller then serialises the parsed value instead). Expects text `JSON.parse` accepted.
 */
export function withoutTopLevelMembers(text: Buffer, names: ReadonlySet<string>): Buffer | undefined {
  let at = skipSpace(text, 0);
  if (text[at] !== OPEN_OBJECT) return undefined;
  at = skipSpace(text, at + 1);
  const kept: [number, number][] = [];
  while (text[at] !== CLOSE_OBJECT) {
    if (text[at] !== QUOTE) return undefined;
    const memberStart = at;
    const keyEnd = stringEnd(text, at);
    if (keyEnd < 0) return undefined;
    const key = keyOf(text, memberStart, keyEnd);
    at = skipSpace(text, keyEnd);
    if (text[at] !== COLON) return undefined;
    const valueEnd = valueEndFrom(text, skipSpace(text, at + 1));
    if (valueEnd < 0) return undefined;
    if (!names.has(key)) kept.push([memberStart, valueEnd]);
    at = skipSpace(text, valueEnd);
    if (text[at] === COMMA) at = skipSpace(text, at + 1);
    else if (text[at] !== CLOSE_OBJECT) return undefined;
  }
  let length = 2 + Math.max(0, kept.length - 1);
  for (const [start, end] of kept) length += end - start;
  const out = Buffer.allocUnsafe(length);
  let written = 0;
  out[written++] = OPEN_OBJECT;
  kept.forEach(([start, end], i) => {
    if (i > 0) out[written++] = COMMA;
    written += text.copy(out, written, start, end);
  });
  out[written] = CLOSE_OBJECT;
  return out;
}

function keyOf(text: Buffer, start: number, end: number): string {
  const raw = text.toString('utf8', start + 1, end - 1);
  return raw.includes('\\') ? (JSON.parse(text.toString('utf8', start, end)) as string) : raw;
}

/** Index just past the string starting at `at` (a quote), or -1. Jumps from quote to quote with a native search. */
function stringEnd(text: Buffer, at: number): number {
  let quote = text.indexOf(QUOTE, at + 1);
  while (quote >= 0) {
    let backslashes = 0;
    while (text[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf(QUOTE, quote + 1);
  }
  return -1;
}

/** Index just past the value starting at `at`, or -1. */
function valueEndFrom(text: Buffer, at: number): number {
  const first = text[at];
  if (first === QUOTE) return stringEnd(text, at);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    let i = at;
    while (i < text.length && text[i] !== COMMA && text[i] !== CLOSE_OBJECT && text[i] !== CLOSE_ARRAY && !isSpace(text[i]!)) i++;
    return i > at ? i : -1;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const byte = text[i];
    if (byte === QUOTE) {
      i = stringEnd(text, i) - 1;
      if (i < 0) return -1;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth++;
    else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function skipSpace(text: Buffer, at: number): number {
  while (at < text.length && isSpace(text[at]!)) at++;
  return at;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}
