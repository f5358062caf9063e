/**
 * Response bodies judged against openapi.yaml: the schema for a status is the one the
 * document declares for that status of the search operation. Ajv's 2020-12 dialect is the
 * one OpenAPI 3.1 uses; formats run in full mode (a 30 February is not a date).
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { SEARCH_PATH, type OpenApiDocument } from '../contract';

export type SchemaVerdict = { valid: true } | { valid: false; errors: string[] } | { valid: 'no-schema' };

export interface ResponseValidator {
  /** Statuses the document declares a JSON body for. */
  readonly statuses: number[];
  validate(status: number, body: unknown): SchemaVerdict;
}

const DOCUMENT_ID = 'openapi.json';
const MAX_ERRORS = 8;

export function createResponseValidator(document: OpenApiDocument): ResponseValidator {
  // `strict: false` because OpenAPI adds keywords (discriminator, example) that are not JSON Schema.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv, { mode: 'full' });
  ajv.addSchema({ $id: DOCUMENT_ID, components: document.components });

  const byStatus = new Map<number, ValidateFunction>();
  for (const [status, schema] of declaredResponseSchemas(document)) byStatus.set(status, ajv.compile(rebase(schema)));
  const byKind = new Map<string, ValidateFunction>();
  const kindSchema = (kind: string) => {
    if (!byKind.has(kind)) byKind.set(kind, ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/${kind}` }));
    return byKind.get(kind)!;
  };
  const kinds = new Set(Object.keys(eventMapping(document)));

  return {
    statuses: [...byStatus.keys()],
    validate(status, body) {
      const validate = byStatus.get(status);
      if (!validate) return { valid: 'no-schema' };
      if (validate(body)) return { valid: true };
      // A bad item of the 14-way event union makes Ajv report every member's complaint;
      // judging the item by its own kind's schema says what is actually wrong with it.
      const itemErrors = status === 200 ? eventItemErrors(body, kinds, kindSchema) : [];
      const errors = itemErrors.length > 0 ? itemErrors : describeErrors(validate.errors ?? []);
      return { valid: false, errors: errors.slice(0, MAX_ERRORS) };
    },
  };
}

function declaredResponseSchemas(document: OpenApiDocument): [number, Record<string, unknown>][] {
  const operation = document.paths[SEARCH_PATH]?.['get'] as { responses?: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }> };
  return Object.entries(operation.responses ?? {}).flatMap(([status, response]) => {
    const schema = response.content?.['application/json']?.schema;
    return schema && /^\d{3}$/.test(status) ? [[Number(status), schema] as [number, Record<string, unknown>]] : [];
  });
}

/** Points the document's local `$ref`s at the copy registered under DOCUMENT_ID. */
function rebase(schema: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${DOCUMENT_ID}#/`)) as Record<string, unknown>;
}

function eventMapping(document: OpenApiDocument): Record<string, string> {
  const event = document.components.schemas['Event'] as { discriminator?: { mapping?: Record<string, string> } } | undefined;
  return event?.discriminator?.mapping ?? {};
}

function eventItemErrors(body: unknown, kinds: Set<string>, kindSchema: (kind: string) => ValidateFunction): string[] {
  const items = (body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  const errors: string[] = [];
  items.forEach((item, index) => {
    const kind = (item as { kind?: unknown } | null)?.kind;
    if (typeof kind !== 'string' || !kinds.has(kind)) {
      errors.push(`/items/${index}: kind ${JSON.stringify(kind)} is not one of the contract's event kinds`);
      return;
    }
    const validate = kindSchema(kind);
    if (!validate(item)) errors.push(...describeErrors(validate.errors ?? [], `/items/${index}`).map((error) => `${error} [${kind}]`));
  });
  return errors;
}

function describeErrors(errors: ErrorObject[], prefix = ''): string[] {
  return errors.map((error) => {
    const where = prefix + error.instancePath || '(body)';
    const extra = error.keyword === 'additionalProperties' ? ` (${JSON.stringify((error.params as { additionalProperty: string }).additionalProperty)})` : '';
    return `${where} ${error.message ?? error.keyword}${extra}`;
  });
}
