/**
 * The document the kit judges with: the contract bundled with it, or the one `--contract`
 * names (a file or an http(s) URL, YAML or JSON). A user who edited the contract tests an
 * implementation against the edit with the installed kit, without rebuilding it.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { loadOpenApiDocument, type OpenApiDocument } from '../contract';

export type ContractRead = { ok: true; document: OpenApiDocument } | { ok: false; message: string };

/** The bundled contract when `source` is undefined. */
export async function loadContract(source: string | undefined, fetchImpl: typeof fetch = fetch): Promise<ContractRead> {
  if (source === undefined) return { ok: true, document: loadOpenApiDocument() };
  if (/^https?:\/\//i.test(source)) {
    let text: string;
    try {
      const response = await fetchImpl(source, { signal: AbortSignal.timeout(10_000) });
      if (!response.ok)
        return { ok: false, message: `--contract ${source} answered ${response.status}; pass the URL of the OpenAPI document itself` };
      text = await response.text();
    } catch (error) {
      return { ok: false, message: `--contract ${source} could not be fetched (${(error as Error).message}); is the URL right?` };
    }
    return parseContract(text, `--contract ${source}`);
  }
  return readContractFile(source, `--contract ${source}`);
}

export function readContractFile(file: string, label = file): ContractRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, message: `cannot read ${label}: ${(error as Error).message}` };
  }
  return parseContract(text, label);
}

/** YAML is a superset of JSON, so one parser reads both. */
export function parseContract(text: string, label: string): ContractRead {
  let value: unknown;
  try {
    value = parse(text, { maxAliasCount: -1 });
  } catch (error) {
    return { ok: false, message: `${label} is neither YAML nor JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || typeof (value as { paths?: unknown }).paths !== 'object') {
    return { ok: false, message: `${label} is not an OpenAPI document (no paths); pass openapi.yaml or its JSON form` };
  }
  const document = value as OpenApiDocument;
  document.components ??= { schemas: {} };
  document.components.schemas ??= {};
  const external = JSON.stringify(document).match(/"\$ref":"(?!#)[^"]*"/);
  if (external) return { ok: false, message: `${label} refers to another file (${external[0]}); bundle it into one document first (redocly bundle)` };
  return { ok: true, document };
}
