/**
 * The contract's operations, compiled once from the document: every method of every path,
 * its parameters with their schemas resolved, its declared responses, and the one rule
 * that says which operation a request is for. The server routes with it, the kit
 * generates requests and judges answers with it, the proxy and the coverage attribute
 * traffic with it, so they cannot disagree about what `/x/b/c` is.
 */
import type { OpenApiDocument } from './document';
import { dereferenceSchema, followReferences } from './references';

/** The HTTP methods an OpenAPI path item can hold, upper-cased as requests carry them. */
export const HTTP_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A parameter's schema with every `$ref` resolved; kept loose beyond the keywords the readers use. */
export interface ParameterSchema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
  anyOf?: ParameterSchema[];
  oneOf?: ParameterSchema[];
  /** For a list parameter (`ids=a&ids=b`): its items' schema and how many it may have. */
  items?: ParameterSchema;
  maxItems?: number;
  [keyword: string]: unknown;
}

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface ContractParameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
  schema: ParameterSchema;
  allowReserved?: boolean;
  allowEmptyValue?: boolean;
}

export interface ContractResponse {
  /** As written: `200`, `4XX` or `default`. */
  status: string;
  /** Media types of the declared body, empty when the response has none. */
  mediaTypes: string[];
  /** The JSON body's schema as written (its `$ref`s kept, for a validator that registers the whole document). */
  jsonSchema?: Record<string, unknown>;
}

export interface ContractOperation {
  /** The operationId, or `METHOD /path` when the document gives none. */
  operationId: string;
  hasOperationId: boolean;
  method: HttpMethod;
  /** The path as the contract writes it, `/api/conversations/{conversation_id}/events/search`. */
  template: string;
  /** Path parameters in the order they appear in the template. */
  pathParameterNames: string[];
  /** Path-item parameters, then the operation's, `$ref`s resolved; an operation's parameter overrides the path item's of the same name and place. */
  parameters: ContractParameter[];
  responses: ContractResponse[];
  /** Declared status keys in document order. */
  statuses: string[];
  /** The JSON schema declared for each numeric status, when there is one. */
  responseSchemas: Map<number, Record<string, unknown>>;
  /** The JSON schema of the request body, when the operation takes one (the batch get of events, a GET). */
  requestBodySchema?: Record<string, unknown>;
}

export interface OperationMatch {
  operation: ContractOperation;
  /** The path parameters' segments as sent, before any decoding, in `pathParameterNames` order. */
  segments: string[];
  /** The path parameters, percent-decoded where they decode. */
  pathParameters: Record<string, string>;
}

export interface OperationTable {
  readonly document: OpenApiDocument;
  /** Every operation, in matching order: literal segments before templated ones, segment by segment. */
  readonly operations: readonly ContractOperation[];
  byId(operationId: string): ContractOperation | undefined;
  /** The operation a method and path (no query) are for; undefined when none. */
  match(method: string, pathname: string): OperationMatch | undefined;
  /** The methods the contract declares for a path, whichever operation it is; empty when no path of the contract matches. */
  methodsAt(pathname: string): HttpMethod[];
}

type RawParameter = { name: string; in: ParameterLocation; required?: boolean; schema?: unknown; allowReserved?: boolean; allowEmptyValue?: boolean };
type RawOperation = {
  operationId?: string;
  parameters?: unknown[];
  responses?: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
  requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> };
};

const compiled = new WeakMap<OpenApiDocument, OperationTable>();

/** The table of a document, compiled on first use and kept for as long as the document is. */
export function operationTable(document: OpenApiDocument): OperationTable {
  let table = compiled.get(document);
  if (!table) {
    table = compileOperationTable(document);
    compiled.set(document, table);
  }
  return table;
}

export function compileOperationTable(document: OpenApiDocument): OperationTable {
  const operations: ContractOperation[] = [];
  for (const [template, rawItem] of Object.entries(document.paths ?? {})) {
    const item = followReferences(document, rawItem) as Record<string, unknown>;
    const shared = (item['parameters'] as unknown[] | undefined) ?? [];
    for (const method of HTTP_METHODS) {
      const raw = item[method.toLowerCase()] as RawOperation | undefined;
      if (!raw) continue;
      operations.push(compileOperation(document, template, method, raw, shared));
    }
  }
  const ordered = operations
    .map((operation, index) => ({ operation, index, key: specificityKey(operation.template) }))
    .sort((a, b) => compareKeys(a.key, b.key) || a.index - b.index)
    .map(({ operation }) => operation);
  const byId = new Map(ordered.map((operation) => [operation.operationId, operation]));
  return {
    document,
    operations: ordered,
    byId: (operationId) => byId.get(operationId),
    match: (method, pathname) => matchOperation(ordered, method.toUpperCase(), pathname),
    methodsAt(pathname) {
      // The path the request is for is the first that matches; other methods there are its siblings.
      const template = ordered.find((operation) => matchTemplate(operation, pathname) !== undefined)?.template;
      return ordered.filter((operation) => operation.template === template).map((operation) => operation.method);
    },
  };
}

function compileOperation(document: OpenApiDocument, template: string, method: HttpMethod, raw: RawOperation, shared: unknown[]): ContractOperation {
  const byPlace = new Map<string, ContractParameter>();
  for (const parameter of [...shared, ...(raw.parameters ?? [])]) {
    const resolved = followReferences(document, parameter as object) as RawParameter;
    byPlace.set(`${resolved.in}:${resolved.name}`, {
      name: resolved.name,
      in: resolved.in,
      required: resolved.required === true || resolved.in === 'path',
      schema: (dereferenceSchema(document, resolved.schema ?? {}) ?? {}) as ParameterSchema,
      ...(resolved.allowReserved !== undefined ? { allowReserved: resolved.allowReserved } : {}),
      ...(resolved.allowEmptyValue !== undefined ? { allowEmptyValue: resolved.allowEmptyValue } : {}),
    });
  }
  const responses: ContractResponse[] = Object.entries(raw.responses ?? {}).map(([status, rawResponse]) => {
    const response = followReferences(document, rawResponse);
    const content = response.content ?? {};
    const jsonSchema = content['application/json']?.schema;
    return { status, mediaTypes: Object.keys(content), ...(jsonSchema ? { jsonSchema } : {}) };
  });
  const requestBodySchema = followReferences(document, raw.requestBody ?? {}).content?.['application/json']?.schema;
  const responseSchemas = new Map<number, Record<string, unknown>>();
  for (const response of responses)
    if (response.jsonSchema && /^\d{3}$/.test(response.status)) responseSchemas.set(Number(response.status), response.jsonSchema);
  return {
    operationId: raw.operationId ?? `${method} ${template}`,
    hasOperationId: raw.operationId !== undefined,
    method,
    template,
    pathParameterNames: [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? ''),
    parameters: [...byPlace.values()],
    responses,
    statuses: responses.map((response) => response.status),
    responseSchemas,
    ...(requestBodySchema ? { requestBodySchema } : {}),
  };
}

/** One flag a segment: 0 literal, 1 templated. Compared in order, a literal segment wins over a templated one at the first place they differ. */
function specificityKey(template: string): number[] {
  return template.split('/').map((segment) => (segment.includes('{') ? 1 : 0));
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

function matchOperation(operations: readonly ContractOperation[], method: string, pathname: string): OperationMatch | undefined {
  for (const operation of operations) {
    if (operation.method !== method) continue;
    const segments = matchTemplate(operation, pathname);
    if (segments) {
      const pathParameters: Record<string, string> = {};
      operation.pathParameterNames.forEach((name, index) => {
        pathParameters[name] = safeDecode(segments[index] ?? '');
      });
      return { operation, segments, pathParameters };
    }
  }
  return undefined;
}

const patterns = new WeakMap<ContractOperation, RegExp>();

/** The raw path-parameter segments when the path is the operation's; a trailing slash is tolerated, as the server's router does. */
function matchTemplate(operation: ContractOperation, pathname: string): string[] | undefined {
  let pattern = patterns.get(operation);
  if (!pattern) {
    const source = operation.template
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
      .join('');
    pattern = new RegExp(`^${source}/?$`);
    patterns.set(operation, pattern);
  }
  return pattern.exec(pathname)?.slice(1);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Whether one declared status key (`404`, `4XX`, `default`) covers a status. */
export function statusCovers(declared: string, status: number): boolean {
  const text = String(status);
  return declared === text || declared.toUpperCase() === `${text[0]}XX` || declared === 'default';
}

/** Whether a status is declared for an operation, directly, by range (`4XX`) or by `default`. */
export function declaresStatus(operation: ContractOperation, status: number): boolean {
  return operation.statuses.some((declared) => statusCovers(declared, status));
}

/** The declared response that covers a status, the exact one first. */
export function responseFor(operation: ContractOperation, status: number): ContractResponse | undefined {
  const text = String(status);
  return (
    operation.responses.find((response) => response.status === text) ??
    operation.responses.find((response) => response.status.toUpperCase() === `${text[0]}XX`) ??
    operation.responses.find((response) => response.status === 'default')
  );
}
