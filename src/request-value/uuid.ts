/**
 * Conversation ids as the reference server reads them (pydantic's UUID, which uses the
 * Rust `uuid` crate): the hyphenated form, 32 hex digits, `{...}` braces and a `urn:uuid:`
 * prefix are accepted in any case; errors carry the wording of the pydantic the pinned
 * reference runs (docs/reference-behaviour.md, "Accepted values and errors").
 */
export type UuidParse = { ok: true; hex: string } | { ok: false; message: string };

const HEX32 = /^[0-9a-fA-F]{32}$/;
const HYPHENATED = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const GROUP_STARTS = [0, 9, 14, 19, 24] as const;
const GROUP_LENGTHS = [8, 4, 4, 4, 12] as const;
const URN_PREFIX = 'urn:uuid:';

/** Parses a UUID in any form pydantic accepts; `hex` is the 32 lower-case hex digits. */
export function parseUuid(input: string): UuidParse {
  if (input.length === 32 && HEX32.test(input)) return { ok: true, hex: input.toLowerCase() };
  const body = unwrapped(input);
  if (body !== undefined && HYPHENATED.test(body)) return { ok: true, hex: body.replaceAll('-', '').toLowerCase() };
  return { ok: false, message: describeInvalid(input) };
}

/** The 36 characters of a hyphenated id as it is, in braces or after `urn:uuid:`. */
function unwrapped(input: string): string | undefined {
  if (input.length === 36) return input;
  if (input.length === 38 && input.startsWith('{') && input.endsWith('}')) return input.slice(1, -1);
  if (input.length === 45 && input.startsWith(URN_PREFIX)) return input.slice(URN_PREFIX.length);
  return undefined;
}

/** `8f1a...` (32 hex) to `8f1a2b3c-4d5e-...`, the form the reference prints in messages. */
export function hyphenate(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The crate parses the 36-character hyphenated form, also inside `{...}` (38) or after
 * `urn:uuid:` (45); an error there is described on the inner 36 characters, counted from 0.
 * Any other input is described as a whole: a wrapper is unwrapped, a character's position
 * counts the wrapper, and only a bare input without hyphens has a "length" rather than groups.
 */
function describeInvalid(input: string): string {
  // The crate decides the form by the length in bytes.
  const length = Buffer.byteLength(input);
  if (length === 38 && input.startsWith('{') && input.endsWith('}')) return describeBody(input.slice(1, -1), 0, false, length);
  if (length === 45 && input.startsWith(URN_PREFIX)) return describeBody(input.slice(URN_PREFIX.length), 0, false, length);
  if (length === 36) return describeBody(input, 0, false, length);
  if (input.length >= 2 && input.startsWith('{') && input.endsWith('}')) return describeBody(input.slice(1, -1), 1, false, length);
  if (input.startsWith(URN_PREFIX)) return describeBody(input.slice(URN_PREFIX.length), URN_PREFIX.length, false, length);
  return describeBody(input, 0, true, [...input].length);
}

function describeBody(body: string, offset: number, simple: boolean, inputLength: number): string {
  const hyphens: number[] = [];
  let index = 0;
  for (const character of body) {
    if (character === '-') hyphens.push(index);
    else if (!/^[0-9a-fA-F]$/.test(character)) return `invalid character: found \`${character}\` at ${index + offset}`;
    index += character.length;
  }
  if (hyphens.length === 0 && simple) return `invalid length: found ${inputLength}`;
  if (hyphens.length !== 4) return `invalid group count: expected 5, found ${hyphens.length + 1}`;
  for (let group = 0; group < 4; group++) {
    const start = GROUP_STARTS[group]!;
    if (hyphens[group] !== GROUP_STARTS[group + 1]! - 1) {
      return `invalid group length in group ${group}: expected ${GROUP_LENGTHS[group]}, found ${hyphens[group]! - start}`;
    }
  }
  return `invalid group length in group 4: expected 12, found ${body.length - GROUP_STARTS[4]}`;
}
