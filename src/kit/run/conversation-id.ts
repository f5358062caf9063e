/**
 * Conversation ids as the kit needs them: the 32 lower-case hex digits of any spelling
 * the reference accepts (hyphenated, bare, braces, urn:uuid:, any case), and the
 * hyphenated form. The kit's own, apart from src/search's pydantic-faithful parser.
 */
const WRAPPERS = [/^\{(.*)\}$/s, /^urn:uuid:(.*)$/s];
const GROUPED = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i;
const BARE = /^[0-9a-f]{32}$/i;

/** The 32 hex digits, or undefined when the text is not a UUID. */
export function uuidHex(text: string): string | undefined {
  if (BARE.test(text)) return text.toLowerCase();
  let inner = text;
  for (const wrapper of WRAPPERS) {
    const unwrapped = wrapper.exec(text)?.[1];
    if (unwrapped !== undefined) inner = unwrapped;
  }
  const groups = GROUPED.exec(inner);
  return groups ? groups.slice(1).join('').toLowerCase() : undefined;
}

/** `8f1a2b3c-4d5e-4f70-8192-a3b4c5d6e7f8` from 32 hex digits. */
export function hyphenated(hex: string): string {
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20, 32)].join('-');
}
