/**
 * The OpenAPI document at run time: the JSON copy that `npm run generate` writes beside
 * the types, so the server, the validator and the contract kit read the same contract
 * that the compiler checked.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const OPENAPI_JSON_PATH = path.resolve(__dirname, '../../generated/openapi.json');

/** A JSON Schema or OpenAPI object, kept loose: the document is data, not code. */
export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

let cached: OpenApiDocument | undefined;

/** Returns a fresh deep copy of the contract, safe for callers that annotate it. */
export function loadOpenApiDocument(): OpenApiDocument {
  cached ??= JSON.parse(readFileSync(OPENAPI_JSON_PATH, 'utf8')) as OpenApiDocument;
  return structuredClone(cached);
}

/** The event kind names, in the order the contract's `Event` union lists them. */
export function eventKindNames(document: OpenApiDocument = loadOpenApiDocument()): string[] {
  const eventSchema = document.components.schemas['Event'] as { discriminator: { mapping: Record<string, string> } };
  return Object.keys(eventSchema.discriminator.mapping);
}
