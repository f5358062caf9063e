/**
 * fast-check generators of request targets a hostile or broken client sends to the search
 * operation: known, unknown, repeated, bracketed and empty parameters; values that are huge,
 * empty, control characters, broken percent-escapes or invalid UTF-8; path segments that
 * try to traverse, encode slashes, run long or carry Unicode; and, now and then, raw bytes
 * that are not allowed in an HTTP request target at all. Every generator yields the target
 * as it goes on the wire (one character per byte).
 */
import fc from 'fast-check';
import { EVENT_KINDS, QUALIFIED_KIND } from '../../../src/search';

/** The search operation's query parameters, as the contract declares them. */
export const QUERY_NAMES = ['page_id', 'limit', 'kind', 'source', 'body', 'sort_order', 'timestamp__gte', 'timestamp__lt'] as const;

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes every byte of the UTF-8 form except the unreserved characters (RFC 3986). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const character = String.fromCharCode(byte);
    out += UNRESERVED.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Escapes that do not decode: truncated, not hex, not UTF-8, overlong, lone surrogates, `%u`. */
export const BROKEN_ESCAPES = ['%', '%%', '%2', '%zz', '%E0%A4%A', '%FF%FE', '%C0%AF', '%C3%28', '%ED%A0%80', '%F0%9F%98', '%u0041', '%%41'];
/** Control characters, percent-encoded: valid HTTP, hostile content. */
export const ENCODED_CONTROLS = ['%00', '%01', '%07', '%08', '%09', '%0A', '%0D%0A', '%1B%5B31m', '%7F', '%C2%85', '%E2%80%A8', '%EF%BB%BF'];
/** Characters sent unencoded that are legal in a request target (RFC 3986 reserved, plus what parsers commonly let through). */
const RAW_PUNCTUATION = [
  ':',
  '/',
  '?',
  '@',
  '!',
  '$',
  "'",
  '(',
  ')',
  '*',
  '+',
  ',',
  ';',
  '=',
  '#',
  '[',
  ']',
  '{',
  '}',
  '|',
  '\\',
  '^',
  '`',
  '"',
  '<',
  '>',
  '~',
  '&',
];

const textValue = fc.string({ unit: 'binary', maxLength: 12 }).map(percentEncode);
const hugeValue = fc
  .tuple(fc.constantFrom('9', 'a', '%41', '%FF', '%E2%82%AC', '+', '0'), fc.integer({ min: 500, max: 3500 }))
  .map(([piece, count]) => piece.repeat(count));
/** Numbers of every length, signed, padded, grouped: where integer parsing breaks (JavaScript numbers end at 309 digits). */
const numberValue = fc
  .tuple(
    fc.constantFrom('', '-', '+', '%20', '0', '%C2%85'),
    fc.constantFrom('9', '1', '0'),
    fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 300, max: 4400 })),
    fc.constantFrom('', '.0', '_0', '.', '%20'),
  )
  .map(([prefix, digit, count, suffix]) => `${prefix}${digit.repeat(count)}${suffix}`);
const valuePiece = fc.oneof(
  { weight: 4, arbitrary: textValue },
  { weight: 2, arbitrary: fc.constantFrom(...BROKEN_ESCAPES) },
  { weight: 2, arbitrary: fc.constantFrom(...ENCODED_CONTROLS) },
  { weight: 2, arbitrary: fc.constantFrom(...RAW_PUNCTUATION) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      '0',
      '1',
      '5',
      '100',
      '101',
      '-1',
      '+5',
      '%205',
      '100.0',
      '1e2',
      '0x10',
      '5_0',
      '1.5',
      '9'.repeat(400),
      'sk-abcdef0123456789',
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'TIMESTAMP',
      'TIMESTAMP_DESC',
      'timestamp',
      'agent',
      'user',
      'environment',
      ...EVENT_KINDS,
      QUALIFIED_KIND.MessageEvent,
    ),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '2026-06-16',
      '2026-06-16T05:40:00',
      '2026-06-16T05%3A40%3A00Z',
      '2024-02-30T00:00:00',
      '1700000000',
      '2026-06-16T05:40:00+05:00',
    ),
  },
  { weight: 1, arbitrary: hugeValue },
  { weight: 2, arbitrary: numberValue },
);

/** A query value on the wire: a few pieces, each valid, hostile or broken, run together. */
export const queryValue = fc.array(valuePiece, { minLength: 0, maxLength: 3 }).map((pieces) => pieces.join(''));

/** A query name: mostly the operation's own, also unknown, bracketed, re-encoded, differently cased or empty. */
export const queryName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...QUERY_NAMES) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 }).map(percentEncode) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...QUERY_NAMES), fc.constantFrom('[]', '[a]', '[0]', '[a][b]', '%5B%5D', '.x'))
      .map(([name, tail]) => name + tail),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'lim%69t',
      'LIMIT',
      'Kind',
      '',
      '__proto__',
      'constructor',
      'hasOwnProperty',
      '__proto__[limit]',
      'toString',
      'x'.repeat(2000),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...BROKEN_ESCAPES, ...ENCODED_CONTROLS) },
);

const queryPair = fc.oneof(
  { weight: 9, arbitrary: fc.tuple(queryName, queryValue).map(([name, value]) => `${name}=${value}`) },
  { weight: 1, arbitrary: queryName },
);

/** A query string (without `?`): repeated, empty and stray separators included. */
export const queryString = fc
  .tuple(fc.array(queryPair, { maxLength: 8 }), fc.constantFrom('&', '&', '&', '&&', ';'))
  .map(([pairs, separator]) => pairs.join(separator));

/** A valid value for each declared parameter, so that one hostile pair among them decides the answer. */
const VALID_VALUES: Record<(typeof QUERY_NAMES)[number], fc.Arbitrary<string>> = {
  page_id: fc.uuid(),
  limit: fc.integer({ min: 1, max: 100 }).map(String),
  kind: fc.constantFrom(...EVENT_KINDS),
  source: fc.constantFrom('agent', 'user', 'environment'),
  body: fc.constantFrom('test', 'the', 'fix'),
  sort_order: fc.constantFrom('TIMESTAMP', 'TIMESTAMP_DESC'),
  timestamp__gte: fc.constantFrom('2026-06-16T05:39:00', '2026-06-16'),
  timestamp__lt: fc.constantFrom('2026-06-17T00:00:00', '2030-01-01'),
};
const validPair = fc.constantFrom(...QUERY_NAMES).chain((name) => VALID_VALUES[name].map((value) => `${name}=${value}`));

/** Valid parameters with one hostile pair among them, so the hostile one is what gets judged. */
export const focusedQueryString = fc
  .tuple(
    fc.array(validPair, { maxLength: 3 }),
    fc.tuple(fc.oneof(queryName, fc.constantFrom(...QUERY_NAMES)), fc.oneof(queryValue, numberValue)),
    fc.nat(),
  )
  .map(([valid, [name, value], at]) => {
    const pairs = [...valid];
    pairs.splice(at % (pairs.length + 1), 0, `${name}=${value}`);
    return pairs.join('&');
  });

/** The forms the reference accepts for one conversation id (docs/reference-behaviour.md, "Accepted values and errors"). */
export function idForms(hyphenated: string): string[] {
  const hex = hyphenated.replaceAll('-', '');
  return [hyphenated, hex, hyphenated.toUpperCase(), `{${hyphenated}}`, `%7B${hyphenated}%7D`, `urn:uuid:${hyphenated}`, `urn%3Auuid%3A${hex}`];
}

const TRAVERSALS = [
  '..',
  '.',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '%2e%2e',
  '%2e%2e%2f%2e%2e%2f',
  '..%5C..%5C',
  '%252e%252e%252f',
  '....%2F%2F',
  '%2F',
  '%2Fetc%2Fpasswd',
  '..%00',
  '%C0%AE%C0%AE%C0%AF',
];

/** The `{conversation_id}` segment: existing ids in every form, unknown ids, traversal, long, Unicode, broken. */
export function conversationSegment(knownIds: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...knownIds.flatMap(idForms)) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...knownIds), fc.constantFrom(...TRAVERSALS)).map(([id, traversal]) => `${id}${traversal}`) },
    { weight: 2, arbitrary: fc.constantFrom(...TRAVERSALS) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom('0', 'f', 'a-', '%41'), fc.integer({ min: 33, max: 4000 })).map(([piece, count]) => piece.repeat(count)),
    },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }).map(percentEncode) },
    { weight: 2, arbitrary: queryValue.filter((value) => value.length > 0) },
  );
}

const PATH_PREFIXES = [
  '/api/conversations/',
  '/api/conversations//',
  '/API/conversations/',
  '/api/conversations/../conversations/',
  '//api/conversations/',
  '/api/%63onversations/',
];
const PATH_SUFFIXES = [
  '/events/search',
  '/events/search/',
  '/events/search//',
  '/events/Search',
  '/events/%73earch',
  '/events',
  '',
  '/events/search/..',
  '/events/search%2F',
  '/events/search;x',
  '/events/search#frag',
];

/** A request target aimed at the search operation, hostile in its path, its query or both. */
export function searchTarget(knownIds: readonly string[]): fc.Arbitrary<string> {
  const prefix = fc.oneof({ weight: 12, arbitrary: fc.constant(PATH_PREFIXES[0]!) }, { weight: 1, arbitrary: fc.constantFrom(...PATH_PREFIXES) });
  const suffix = fc.oneof({ weight: 12, arbitrary: fc.constant(PATH_SUFFIXES[0]!) }, { weight: 1, arbitrary: fc.constantFrom(...PATH_SUFFIXES) });
  const query = fc.option(fc.oneof(queryString, focusedQueryString), { freq: 6, nil: undefined });
  const target = fc
    .tuple(prefix, conversationSegment(knownIds), suffix, query)
    .map(([p, id, s, q]) => (q === undefined ? `${p}${id}${s}` : `${p}${id}${s}?${q}`));
  return fc.oneof({ weight: 15, arbitrary: target }, { weight: 1, arbitrary: withRawByte(target) });
}

/** Bytes a request target must not contain (RFC 9112): controls, space, DEL, and anything above 0x7E unencoded. */
export const RAW_FORBIDDEN_BYTE = fc
  .oneof(fc.integer({ min: 0x00, max: 0x20 }), fc.constant(0x7f), fc.integer({ min: 0x80, max: 0xff }))
  .map((byte) => String.fromCharCode(byte));

function withRawByte(target: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(target, RAW_FORBIDDEN_BYTE, fc.nat()).map(([text, byte, at]) => {
    const position = 1 + (at % text.length);
    return text.slice(0, position) + byte + text.slice(position);
  });
}

/** Whether a request target is well-formed for an HTTP/1.1 request line: origin-form, visible ASCII only. */
export function isWellFormedTarget(target: string): boolean {
  return /^\/[\x21-\x7e]*$/.test(target);
}
