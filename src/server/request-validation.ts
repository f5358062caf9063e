import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { OpenApiDocument } from '../contract';
import { parseBoolean, parseFilterTimestamp, parseInteger, parseUuid } from '../request-value';
import type { OperationRoute, RouteTable } from './operation-routes';
import { type ParameterSpec, isIntegerParameter } from './parameters';
import { isParsedHere } from './parsed-values';
import { loadValidatorModule } from './validator-module';

/** What the query normalisation found out about a request, kept for the handler and the error path. */
const MATCHED = Symbol('matchedOperation');

export interface MatchedRequest {
  route: OperationRoute;
  /** The path parameters' segments as sent, before any decoding. */
  segments: string[];
  /** The raw query as the client sent it, kept for error messages after coercion. */
  rawQuery: Record<string, string>;
}

/** The operation a request was matched to, when it was for one of the contract's paths. */
export function matchedRequest(req: Request): MatchedRequest | undefined {
  return (req as Request & { [MATCHED]?: MatchedRequest })[MATCHED];
}

/**
 * The validator middleware, configured so that it accepts what the reference accepts
 * (docs/reference-behaviour.md, "Toolchain"): unencoded `:` and empty values,
 * unknown query parameters ignored, every failing parameter reported. The parameters with
 * a `uuid` or `date-time` format reach it without their format: parsed-values.ts reads
 * them once, the way pydantic does; the `formats` given here check responses.
 */
export function openApiValidator(document: OpenApiDocument, validateResponses: boolean): RequestHandler {
  // Loaded on the first request that reaches it: requiring express-openapi-validator is the
  // largest part of a server start, and /alive, /health and /docs never need it.
  let validator: RequestHandler | undefined;
  return (req, res, next) => {
    validator ??= inSequence(createValidatorMiddleware(document, validateResponses));
    validator(req, res, next);
  };
}

/**
 * The validator's middlewares run one after another, as one. Not a Router: a router that
 * reaches the end of its stack hands over to the next layer only after a turn of the event
 * loop (setImmediate), and matches and trims the path again for each of them.
 */
export function inSequence(handlers: readonly RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let at = 0;
    const step = (error?: unknown): void => {
      const handler = handlers[at++];
      // As in Express, a falsy value is no error.
      if (error || handler === undefined) {
        next(error);
        return;
      }
      try {
        handler(req, res, step);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}

function createValidatorMiddleware(document: OpenApiDocument, validateResponses: boolean): RequestHandler[] {
  const OpenApiValidator = loadValidatorModule();
  return OpenApiValidator.middleware({
    apiSpec: documentForValidator(document, validateResponses) as never,
    // The document was checked when generated/ was written (npm run generate, and the lint of
    // the checks before the tests); checking it again against the OpenAPI schema took most of
    // the first request's time.
    validateApiSpec: false,
    validateRequests: { allowUnknownQueryParameters: true, allErrors: true },
    validateResponses: validateResponses ? { allErrors: false } : false,
    ignorePaths: (path: string) => !path.startsWith('/api/'),
    ajvFormats: { mode: 'full' },
    formats: {
      uuid: { type: 'string', validate: (value: string) => parseUuid(value).ok },
      'date-time': { type: 'string', validate: (value: string) => parseFilterTimestamp(value).ok },
    },
  });
}

type OperationObject = {
  parameters?: ParameterSpec[];
  requestBody?: unknown;
  responses: Record<string, { description?: string; content?: unknown }>;
};

function documentForValidator(document: OpenApiDocument, validateResponses: boolean): OpenApiDocument {
  const copy = structuredClone(document);
  const operations = Object.values(copy.paths).flatMap((item) => Object.values(item) as OperationObject[]);
  if (!validateResponses) dropResponseSchemas(copy, operations);
  // A request body is read and judged by request-body.ts, in pydantic's words.
  for (const operation of operations) delete operation.requestBody;
  for (const parameter of operations.flatMap((operation) => operation.parameters ?? [])) {
    // Ids and timestamps are parsed once, before the validator, by parsed-values.ts.
    if (isParsedHere(parameter)) parameter.schema = { ...parameter.schema, format: undefined };
    if (parameter.in !== 'query') continue;
    // curl sends `timestamp__gte=2024-01-01T00:00:00Z` unencoded and the reference accepts it.
    parameter.allowReserved = true;
    // `kind=` reaches the reference as an empty string; pydantic decides, not the validator.
    parameter.allowEmptyValue = true;
  }
  return copy;
}

/**
 * Request validation needs only the parameters' schemas. Left in, the event, action,
 * observation and tool schemas cost the validator most of its start-up time for
 * nothing, so they are dropped when responses are not validated.
 */
function dropResponseSchemas(document: OpenApiDocument, operations: OperationObject[]): void {
  for (const operation of operations) {
    for (const status of Object.keys(operation.responses)) operation.responses[status] = { description: 'Not validated.' };
  }
  const kept: Record<string, Record<string, unknown>> = {};
  const pending = referencedSchemaNames(operations.map((operation) => operation.parameters));
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    const schema = document.components.schemas[name];
    if (!schema || kept[name]) continue;
    kept[name] = schema;
    pending.push(...referencedSchemaNames(schema));
  }
  document.components.schemas = kept;
}

function referencedSchemaNames(value: unknown): string[] {
  const refs = JSON.stringify(value).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
  return refs.map((ref) => ref.slice('"#/components/schemas/'.length, -1));
}

/**
 * Cuts a `#fragment` off the request target. HTTP does not allow one there (RFC 9112
 * section 3.2) but Node's parser lets a raw `#` through; Express routes on the path before
 * it while the validator matched routes on the whole target, so `/api/conversations/#%/...`
 * reached the validator as a conversation id and the router as no route at all. Worse,
 * Express reads the path before any middleware runs, with Node's `url.parse`, which finds
 * no path at all in a target such as `//..?a=@#`: Express then answered its own HTML 404.
 * The reference (uvicorn) drops the fragment, and so does this, before Express reads the URL.
 */
export function cutFragment(req: IncomingMessage): void {
  const at = req.url?.indexOf('#') ?? -1;
  if (at >= 0) req.url = req.url!.slice(0, at);
}

/**
 * Puts the query in the form pydantic would read it before the validator sees it:
 * the last of repeated values wins, and integers are read with pydantic's syntax
 * (` 5` and `100.0` are 5 and 100; Ajv's coercion would also take `1e2` and `0x10`,
 * which pydantic rejects, so those are handed on as unparseable), and so are booleans
 * (`True`, `1`, `yes`, `off`... are booleans, Ajv takes only `true` and `false`). Names the matched
 * operation does not declare are dropped, as FastAPI ignores them: the validator would otherwise
 * read `kind[]=x` or `limit[a]=1` as bracket notation for `kind` and `limit` and reject
 * them. Express 5 re-parses `req.query` on every read, so the result is pinned as an
 * own property.
 */
export function normalizeQuery(table: RouteTable): RequestHandler {
  const names = new Map(table.routes.map((route) => [route, queryParameterNames(route.parameters)]));
  return (req: Request, _res: Response, next: NextFunction) => {
    const matched = table.match(req.method, req.path);
    if (!matched) return next();
    const { integers, booleans, arrays, query: declared } = names.get(matched.route)!;
    const raw: Record<string, string> = {};
    const query: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
      const last = Array.isArray(value) ? value[value.length - 1] : value;
      if (!declared.has(name) || typeof last !== 'string') continue;
      raw[name] = last;
      // A list parameter takes every repetition (`ids=a&ids=b`), as FastAPI reads it; any other, the last one.
      if (arrays.has(name)) query[name] = (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');
      else query[name] = integers.has(name) ? canonicalInteger(last) : booleans.has(name) ? canonicalBoolean(last) : last;
    }
    (req as Request & { [MATCHED]?: MatchedRequest })[MATCHED] = { ...matched, rawQuery: raw };
    Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true, enumerable: true });
    next();
  };
}

function queryParameterNames(parameters: readonly ParameterSpec[]): {
  integers: Set<string>;
  booleans: Set<string>;
  arrays: Set<string>;
  query: Set<string>;
} {
  const query = parameters.filter((parameter) => parameter.in === 'query');
  return {
    integers: new Set(query.filter(isIntegerParameter).map((parameter) => parameter.name)),
    booleans: new Set(query.filter((parameter) => parameter.schema.type === 'boolean').map((parameter) => parameter.name)),
    arrays: new Set(query.filter((parameter) => parameter.schema.type === 'array').map((parameter) => parameter.name)),
    query: new Set(query.map((parameter) => parameter.name)),
  };
}

/** pydantic's `True`, `1`, `yes`, `OFF`... as the `true` or `false` Ajv's coercion takes; anything else handed on as unparseable. */
function canonicalBoolean(raw: string): string {
  const reading = parseBoolean(raw);
  return reading.ok ? String(reading.value) : 'not a boolean';
}

function canonicalInteger(raw: string): string {
  const value = parseInteger(raw);
  if (!value.ok) return 'not an integer';
  // From about 309 digits the value is Infinity, which Ajv's coercion takes for an integer
  // within any bounds; handed on as unparseable, it is described from the raw digits.
  return Number.isFinite(value.value) ? String(value.value) : 'not an integer';
}
