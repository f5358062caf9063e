import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { isRecord, readPath } from './data-path';

/** A Helm values file as parsed: the top-level mapping of chart values. */
export type ValuesDocument = Record<string, unknown>;

/** The parsed values, or a message naming the file, the problem and what to do. */
export type ValuesReading = { ok: true; values: ValuesDocument } | { ok: false; error: string };

/**
 * Reads and parses a Helm values file. A missing file, a directory, invalid YAML or a document that
 * is not a mapping come back as an error value (the CLI exits 2 on it); an empty file is an empty
 * mapping, as Helm treats it.
 */
export async function readValuesFile(path: string): Promise<ValuesReading> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return { ok: false, error: describeReadError(path, error) };
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    const firstLine = errorMessage(error).split('\n')[0];
    return { ok: false, error: `values file ${path} is not valid YAML: ${firstLine}. Fix the syntax or pass the right file with --values.` };
  }
  if (document === null || document === undefined) return { ok: true, values: {} };
  if (!isRecord(document)) {
    const found = Array.isArray(document) ? 'a list' : `a ${typeof document}`;
    return {
      ok: false,
      error: `values file ${path} is not a YAML mapping of chart values (it holds ${found}). Pass a Helm values file with --values.`,
    };
  }
  return { ok: true, values: document };
}

function describeReadError(path: string, error: unknown): string {
  const code = readPath(error, ['code']);
  if (code === 'ENOENT') return `values file ${path} does not exist. Pass the path of your Helm values file with --values.`;
  if (code === 'EISDIR') return `values file ${path} is a directory. Pass the path of a Helm values file with --values.`;
  return `cannot read values file ${path}: ${errorMessage(error)}.`;
}

// Read by shape, not `instanceof Error`: fs errors come from Node's realm, not always the caller's.
function errorMessage(error: unknown): string {
  const message = readPath(error, ['message']);
  return typeof message === 'string' ? message : String(error);
}
