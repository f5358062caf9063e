/**
 * `--allow FILE`: known divergences. A list (JSON or YAML) of `{id, reason}`; a failing
 * check on the list is reported as "allowed" with its reason and does not fail the run.
 * A reason is required, so the file documents why each divergence is accepted.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface AllowEntry {
  id: string;
  reason: string;
}

export type AllowListRead = { ok: true; entries: AllowEntry[] } | { ok: false; message: string };

const EXAMPLE = '- id: ref.errors.limit-exponent\n  reason: our server is stricter here, tracked in #123';

export function readAllowList(file: string): AllowListRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, message: `cannot read the allow file ${file}: ${(error as Error).message}` };
  }
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    return { ok: false, message: `the allow file ${file} is neither JSON nor YAML: ${(error as Error).message}` };
  }
  return parseAllowList(parsed, file);
}

export function parseAllowList(parsed: unknown, file: string): AllowListRead {
  if (parsed === null || parsed === undefined) return { ok: true, entries: [] };
  if (!Array.isArray(parsed)) return { ok: false, message: `the allow file ${file} must be a list of {id, reason}, e.g.\n${EXAMPLE}` };
  const entries: AllowEntry[] = [];
  for (const [index, entry] of parsed.entries()) {
    const { id, reason } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    if (typeof id !== 'string' || id === '')
      return { ok: false, message: `entry ${index + 1} of ${file} has no check id; each entry is {id, reason}, e.g.\n${EXAMPLE}` };
    if (typeof reason !== 'string' || reason.trim() === '')
      return { ok: false, message: `entry ${index + 1} of ${file} (${id}) has no reason; say why the divergence is accepted` };
    entries.push({ id, reason });
  }
  return { ok: true, entries };
}
