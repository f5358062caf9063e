/**
 * Booleans as pydantic 2 reads them from a string (its lax mode, which FastAPI uses for query
 * values): the words below in any ASCII case, nothing trimmed; anything else, `" true"` and
 * `maybe` included, is `bool_parsing`. Measured against the pydantic the pinned reference runs.
 */
export type BooleanParse = { ok: true; value: boolean } | { ok: false; message: string };

const TRUE_WORDS = new Set(['1', 'true', 't', 'yes', 'y', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'f', 'no', 'n', 'off']);

export const BOOLEAN_PARSING_MESSAGE = 'Input should be a valid boolean, unable to interpret input';

/** Reads `raw` as pydantic reads a boolean from a string. */
export function parseBoolean(raw: string): BooleanParse {
  // Only ASCII letters fold: pydantic compares with Rust's eq_ignore_ascii_case.
  const folded = raw.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  if (TRUE_WORDS.has(folded)) return { ok: true, value: true };
  if (FALSE_WORDS.has(folded)) return { ok: true, value: false };
  return { ok: false, message: BOOLEAN_PARSING_MESSAGE };
}
