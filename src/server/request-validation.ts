import type { NextFunction, Request, RequestHandler, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenApiDocument } from '../contract';
import { SEARCH_PATH } from '../contract';
import { parseFilterTimestamp } from '../search/timestamps';
import { parseUuid } from '../search/uuid';
import { ParameterSpec, isIntegerParameter } from './parameters';
import { parsePydanticInteger } from './pydantic-errors';

/** The raw query as the client sent it, kept for error messages after coercion. */
export const RAW_QUERY = Symbol('rawQuery');
export type RequestWithRawQuery = Request & { [RAW_QUERY]?: Record<string, string> };

/**
 * The validator middleware, configured so that it accepts what the reference accepts
 * (TOOLCHAIN.md, express-openapi-validator traps): unencoded `:` and empty values,
 * unknown query parameters ignored, every failing parameter reported, and the `uuid`
 * and `date-time` formats read the way pydantic reads them.
 */
export function openApiValidator(document: OpenApiDocument, validateResponses: boolean): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: documentForValidator(document, validateResponses) as never,
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

function documentForValidator(document: OpenApiDocument, validateResponses: boolean): OpenApiDocument {
  const copy = structuredClone(document);
  if (!validateResponses) dropResponseSchemas(copy);
  const operation = copy.paths[SEARCH_PATH]?.['get'] as { parameters: ParameterSpec[] };
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'query') continue;
    // curl sends `timestamp__gte=2024-01-01T00:00:00Z` unencoded and the reference accepts it.
    parameter.allowReserved = true;
    // `kind=` reaches the reference as an empty string; pydantic decides, not the validator.
    parameter.allowEmptyValue = true;
  }
  return copy;
}

/**
 * Request validation needs only the parameters' schemas. Left in, the 84 event, action,
 * observation and tool schemas cost the validator about half a second at start-up for
 * nothing, so they are dropped when responses are not validated.
 */
function dropResponseSchemas(document: OpenApiDocument): void {
  const pending: string[] = [];
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem) as { parameters?: unknown; responses: Record<string, { content?: unknown }> }[]) {
      for (const response of Object.values(operation.responses)) delete response.content;
      pending.push(...referencedSchemaNames(operation.parameters ?? []));
    }
  }
  const kept: Record<string, Record<string, unknown>> = {};
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
 * reached the validator as a conversation id and the router as no route at all. The
 * reference (uvicorn) drops the fragment, and so does this, before anything reads the URL.
 */
export function dropFragment(): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const at = req.url.indexOf('#');
    if (at >= 0) {
      req.url = req.url.slice(0, at);
      req.originalUrl = req.url;
    }
    next();
  };
}

/**
 * Puts the query in the form pydantic would read it before the validator sees it:
 * the last of repeated values wins, and integers are read with pydantic's syntax
 * (` 5` and `100.0` are 5 and 100; Ajv's coercion would also take `1e2` and `0x10`,
 * which pydantic rejects, so those are handed on as unparseable). Names the operation
 * does not declare are dropped, as FastAPI ignores them: the validator would otherwise
 * read `kind[]=x` or `limit[a]=1` as bracket notation for `kind` and `limit` and reject
 * them. Express 5 re-parses `req.query` on every read, so the result is pinned as an
 * own property.
 */
export function normalizeQuery(parameters: ParameterSpec[]): RequestHandler {
  const integerNames = new Set(parameters.filter(isIntegerParameter).map((parameter) => parameter.name));
  const queryNames = new Set(parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name));
  return (req: Request, _res: Response, next: NextFunction) => {
    const raw: Record<string, string> = {};
    const query: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
      const last = Array.isArray(value) ? value[value.length - 1] : value;
      if (!queryNames.has(name) || typeof last !== 'string') continue;
      raw[name] = last;
      query[name] = integerNames.has(name) ? canonicalInteger(last) : last;
    }
    (req as RequestWithRawQuery)[RAW_QUERY] = raw;
    Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true, enumerable: true });
    next();
  };
}

function canonicalInteger(raw: string): string {
  const value = parsePydanticInteger(raw);
  // From about 309 digits the value is Infinity, which Ajv's coercion takes for an integer
  // within any bounds; handed on as unparseable, it is described from the raw digits.
  return value === undefined || !Number.isFinite(value) ? 'not an integer' : String(value);
}
