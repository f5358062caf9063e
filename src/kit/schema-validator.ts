/**
 * Response bodies judged against openapi.yaml: the schema for an operation and status is
 * the one the document declares there. Ajv's 2020-12 dialect is the one OpenAPI 3.1 uses;
 * formats run in full mode (a 30 February is not a date).
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { type OpenApiDocument, operationTable } from '../contract';

export type SchemaVerdict = { valid: true } | { valid: false; errors: string[] } | { valid: 'no-schema' };

export interface ResponseValidator {
  /** Statuses the document declares a JSON body for, for one operation. */
  statusesOf(operationId: string): number[];
  validate(operationId: string, status: number, body: unknown): SchemaVerdict;
}

const DOCUMENT_ID = 'openapi.json';
const MAX_ERRORS = 8;

export function createResponseValidator(document: OpenApiDocument): ResponseValidator {
  // `strict: false` because OpenAPI adds keywords (discriminator, example) that are not JSON Schema.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv, { mode: 'full' });
  ajv.addSchema({ $id: DOCUMENT_ID, components: document.components });

  const byOperation = new Map<string, Map<number, ValidateFunction>>();
  for (const operation of operationTable(document).operations) {
    const byStatus = new Map<number, ValidateFunction>();
    for (const [status, schema] of operation.responseSchemas) byStatus.set(status, ajv.compile(rebase(schema)));
    byOperation.set(operation.operationId, byStatus);
  }
  const byKind = new Map<string, ValidateFunction>();
  const kindSchema = (kind: string) => {
    if (!byKind.has(kind)) byKind.set(kind, ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/${kind}` }));
    return byKind.get(kind)!;
  };
  const kinds = new Set(Object.keys(eventMapping(document)));

  return {
    statusesOf: (operationId) => [...(byOperation.get(operationId)?.keys() ?? [])],
    validate(operationId, status, body) {
      const validate = byOperation.get(operationId)?.get(status);
      if (!validate) return { valid: 'no-schema' };
      if (status === 200 && validByKind(body, validate, kinds, kindSchema)) return { valid: true };
      if (validate(body)) return { valid: true };
      // A bad item of the 14-way event union makes Ajv report every member's complaint;
      // judging the item by its own kind's schema says what is actually wrong with it.
      const itemErrors = status === 200 ? eventErrors(body, kinds, kindSchema) : [];
      const errors = itemErrors.length > 0 ? itemErrors : describeErrors(validate.errors ?? []);
      return { valid: false, errors: errors.slice(0, MAX_ERRORS) };
    },
  };
}

/** Points the document's local `$ref`s at the copy registered under DOCUMENT_ID. */
function rebase(schema: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${DOCUMENT_ID}#/`)) as Record<string, unknown>;
}

function eventMapping(document: OpenApiDocument): Record<string, string> {
  const event = document.components.schemas['Event'] as { discriminator?: { mapping?: Record<string, string> } } | undefined;
  return event?.discriminator?.mapping ?? {};
}

/**
 * The fast path for bodies of events: each event judged by its own kind's schema, and the
 * page around them with no items. The same verdict as the union when every kind is known
 * (each member's `kind` is a const, so only that member can match), at a fraction of the
 * cost of trying all fourteen, which is what keeps the proxy's judging cheap.
 */
function validByKind(body: unknown, validate: ValidateFunction, kinds: Set<string>, kindSchema: (kind: string) => ValidateFunction): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const items = (body as { items?: unknown }).items;
  const events = Array.isArray(items) ? items : [body];
  const allKnown = events.every(
    (event) => typeof (event as { kind?: unknown } | null)?.kind === 'string' && kinds.has((event as { kind: string }).kind),
  );
  if (!allKnown || events.length === 0) return false;
  if (!events.every((event) => kindSchema((event as { kind: string }).kind)(event))) return false;
  return Array.isArray(items) ? validate({ ...body, items: [] }) : validate(body);
}

/** One clear error list per event: each item of a page, or the single event get-by-id answers. */
function eventErrors(body: unknown, kinds: Set<string>, kindSchema: (kind: string) => ValidateFunction): string[] {
  const items = (body as { items?: unknown } | null)?.items;
  if (Array.isArray(items)) return items.flatMap((item, index) => oneEventErrors(item, `/items/${index}`, kinds, kindSchema));
  const isEventLike = typeof body === 'object' && body !== null && 'kind' in body;
  return isEventLike ? oneEventErrors(body, '', kinds, kindSchema) : [];
}

function oneEventErrors(item: unknown, where: string, kinds: Set<string>, kindSchema: (kind: string) => ValidateFunction): string[] {
  const kind = (item as { kind?: unknown } | null)?.kind;
  if (typeof kind !== 'string' || !kinds.has(kind))
    return [`${where || '(body)'}: kind ${JSON.stringify(kind)} is not one of the contract's event kinds`];
  const validate = kindSchema(kind);
  return validate(item) ? [] : describeErrors(validate.errors ?? [], where).map((error) => `${error} [${kind}]`);
}

function describeErrors(errors: ErrorObject[], prefix = ''): string[] {
  return errors.map((error) => {
    const where = prefix + error.instancePath || '(body)';
    const extra =
      error.keyword === 'additionalProperties' ? ` (${JSON.stringify((error.params as { additionalProperty: string }).additionalProperty)})` : '';
    return `${where} ${error.message ?? error.keyword}${extra}`;
  });
}
