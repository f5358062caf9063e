import { randomUUID } from 'node:crypto';
import { unescape } from 'node:querystring';
import type { ErrorRequestHandler, Request } from 'express';
import type {
  HTTPValidationError,
  InternalServerError,
  NotFoundError,
  ServiceUnavailableError,
  UnauthorizedError,
  ValidationError,
} from '../contract';
import { jsonText } from '../json/json-text';
import type { Logger } from '../log';
import { StoreUnavailableError } from '../store/store-unavailable';
import type { ParameterSpec } from './parameters';
import { parsedValues } from './parsed-values';
import { describeInvalidParameter } from './pydantic-errors';
import { requestBodyOf } from './request-body';
import { type MatchedRequest, matchedRequest } from './request-validation';

/** An error body the contract declares, or the plain `{detail}` of a status it leaves to HTTP (405, 413, 431). */
type ErrorBody = NotFoundError | UnauthorizedError | Required<HTTPValidationError> | { detail: string };

/** A failure the client caused or asked about, with the status and body to send. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    /** Headers HTTP requires with the status, such as `Allow` with a 405. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : 'validation failed');
  }
}

type AnnotatedRequest = Request & { openapi?: { pathParams?: Record<string, string> } };

interface ValidatorError {
  status?: number;
  errors?: { path?: string; message?: string }[];
  /** The validator's 405 carries `Allow`: the methods the contract has for the path. */
  headers?: Record<string, string>;
}

/**
 * The one error path: validator errors become the contract's 422, `HttpError`s are sent
 * as they are, storage that cannot be reached is a 503, and anything else is a fault of
 * ours, a 500; both are logged with a correlation id that the body repeats so an operator
 * can find it.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.headersSent) {
      // Too late for an error status: the response is cut, so the client sees an incomplete transfer and never a short one that looks whole.
      logger.error('response cut', { correlation_id: randomUUID(), method: req.method, path: req.path, error: messageOf(error) });
      res.destroy();
      return;
    }
    const known = toHttpError(error, req);
    if (known) {
      // Written without recursion: a 422 echoes a body's items as sent, which may be nested thousands deep.
      res.status(known.status).set(known.headers).type('json').send(jsonText(known.body));
      return;
    }
    const correlationId = randomUUID();
    if (error instanceof StoreUnavailableError) {
      logger.warn('storage unavailable', { correlation_id: correlationId, method: req.method, path: req.path, error: error.message });
      const body: ServiceUnavailableError = { detail: 'Service Unavailable', correlation_id: correlationId };
      res.status(503).json(body);
      return;
    }
    logger.error('request failed', {
      correlation_id: correlationId,
      method: req.method,
      path: req.path,
      error: messageOf(error, true),
    });
    const body: InternalServerError = { detail: 'Internal Server Error', correlation_id: correlationId };
    res.status(500).json(body);
  };
}

function messageOf(error: unknown, withStack = false): string {
  if (!(error instanceof Error)) return String(error);
  return withStack ? (error.stack ?? error.message) : error.message;
}

function toHttpError(error: unknown, req: Request): HttpError | undefined {
  if (error instanceof HttpError) return error;
  const status = (error as ValidatorError | undefined)?.status;
  const matched = matchedRequest(req);
  if (status === 400 && matched) {
    const detail = validationDetail(error as ValidatorError, req, matched);
    if (detail.length > 0) return new HttpError(422, { detail });
    const undecodable = undecodablePathParameters(matched);
    if (undecodable.length > 0) return new HttpError(422, { detail: undecodable });
    // A segment without a format that does not decode (an event id) names nothing stored.
    if (matched.segments.some((segment) => !decodes(segment))) return new HttpError(404, { detail: 'Not Found' });
  }
  if (status === 404) return new HttpError(404, { detail: 'Not Found' });
  // RFC 9110 requires a 405 to say in `Allow` which methods the resource has, as FastAPI does.
  if (status === 405) return new HttpError(405, { detail: 'Method Not Allowed' }, allowHeader(error as ValidatorError));
  if (status === 413 || status === 414 || status === 431) return new HttpError(status, { detail: 'Request Too Large' });
  return undefined;
}

function allowHeader(error: ValidatorError): Record<string, string> {
  const allow = error.headers?.Allow;
  return allow ? { Allow: allow } : {};
}

/**
 * One item per failing parameter: path first, then query parameters in declaration order.
 * The validator names those it rejected; ids and timestamps that do not parse were found
 * before it ran (parsed-values.ts), whichever of the two reports the failure.
 */
function validationDetail(error: ValidatorError, req: Request, matched: MatchedRequest): ValidationError[] {
  const parsed = parsedValues(req);
  const failing = new Set([...(error.errors ?? []).map((item) => parameterNameOf(item.path)), ...(parsed?.failing() ?? [])]);
  const parameters = matched.route.parameters
    .filter((parameter) => failing.has(parameter.name))
    .map((parameter) =>
      describeInvalidParameter(parameter, rawValue(parameter, req, matched.rawQuery), parsed?.readingOf(parameter.name), listValues(parameter, req)),
    );
  // FastAPI reports a body's problems after the parameters', in the same 422.
  const body = requestBodyOf(req);
  return parameters.length > 0 && body && !body.ok ? [...parameters, ...body.problems] : parameters;
}

function parameterNameOf(path: string | undefined): string | undefined {
  return path?.split('/').filter(Boolean)[1];
}

/** The value as sent; undefined for a query parameter the request does not have. */
function rawValue(parameter: ParameterSpec, req: Request, rawQuery: Record<string, string>): string | undefined {
  // Path parameters are matched by the validator before any route runs, so they are on
  // its request annotation rather than in req.params when validation fails.
  if (parameter.in === 'path') return String((req as AnnotatedRequest).openapi?.pathParams?.[parameter.name] ?? '');
  return rawQuery[parameter.name];
}

/** Every value of a list parameter, as the query normalisation kept them. */
function listValues(parameter: ParameterSpec, req: Request): string[] {
  const value = (req.query as Record<string, unknown>)[parameter.name];
  return Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
}

/**
 * Path parameters whose percent-escapes do not decode (`%E0%A4%A`, `%FF%FE`, a lone `%`): the
 * validator's decodeURIComponent fails on them before any parameter is checked. The reference
 * decodes the path leniently (Python's unquote: bytes that are not UTF-8 become U+FFFD, a broken
 * escape stays as written, exactly what querystring.unescape does) and pydantic then rejects the
 * result, so the answer is the same 422. Only parameters with a format can fail that way; query
 * parameters are not checked in that case.
 */
function undecodablePathParameters({ route, segments }: MatchedRequest): ValidationError[] {
  return segments.flatMap((segment, i) => {
    const parameter = route.parameters.find((candidate) => candidate.in === 'path' && candidate.name === route.pathParameterNames[i]);
    return parameter?.schema.format && !decodes(segment) ? [describeInvalidParameter(parameter, unescape(segment))] : [];
  });
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}
