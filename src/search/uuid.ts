/**
 * Conversation ids as the reference server reads them (pydantic's UUID, which uses the
 * Rust `uuid` crate): the hyphenated form, 32 hex digits, `{...}` braces and a `urn:uuid:`
 * prefix are accepted in any case; errors carry the crate's wording.
 */
export type UuidParse = { ok: true; hex: string } | { ok: false; message: string };

const HEX32 = /^[0-9a-fA-F]{32}$/;
const HYPHENATED = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const GROUP_STARTS = [0, 9, 14, 19, 24] as const;
const GROUP_LENGTHS = [8, 4, 4, 4, 12] as const;

/** Parses a UUID in any form pydantic accepts; `hex` is the 32 lower-case hex digits. */
export function parseUuid(input: string): UuidParse {
  const { body, offset, simple } = unwrap(input);
  if (input.length === 32 && HEX32.test(input)) return { ok: true, hex: input.toLowerCase() };
  if ((input.length === 36 || !simple) && body.length === 36 && HYPHENATED.test(body)) {
    return { ok: true, hex: body.replaceAll('-', '').toLowerCase() };
  }
  return { ok: false, message: describeInvalid(input, body, offset, simple) };
}

/** `8f1a...` (32 hex) to `8f1a2b3c-4d5e-...`, the form the reference prints in messages. */
export function hyphenate(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function unwrap(input: string): { body: string; offset: number; simple: boolean } {
  if (input.length >= 2 && input.startsWith('{') && input.endsWith('}')) {
    return { body: input.slice(1, -1), offset: 1, simple: false };
  }
  if (input.startsWith('urn:uuid:')) return { body: input.slice('urn:uuid:'.length), offset: 'urn:uuid:'.length, simple: false };
  return { body: input, offset: 0, simple: true };
}

function describeInvalid(input: string, body: string, offset: number, simple: boolean): string {
  const hyphens: number[] = [];
  let index = 0;
  for (const character of body) {
    if (character === '-') hyphens.push(index);
    else if (!/^[0-9a-fA-F]$/.test(character)) return `invalid character: found \`${character}\` at ${index + offset + 1}`;
    index += character.length;
  }
  if (hyphens.length === 0 && simple) return `invalid length: expected length 32 for simple format, found ${[...input].length}`;
  if (hyphens.length !== 4) return `invalid group count: expected 5, found ${hyphens.length + 1}`;
  for (let group = 0; group < 4; group++) {
    const start = GROUP_STARTS[group]!;
    if (hyphens[group] !== GROUP_STARTS[group + 1]! - 1) {
      return `invalid group length in group ${group}: expected ${GROUP_LENGTHS[group]}, found ${hyphens[group]! - start}`;
    }
  }
  return `invalid group length in group 4: expected 12, found ${body.length - GROUP_STARTS[4]}`;
}
