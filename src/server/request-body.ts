/**
 * The request body of an operation that takes one (the batch get of events: a JSON array of
 * ids in the body of a GET, as the reference 1.58.2 declares it), read and judged the way
 * FastAPI and pydantic judge it, into the same pydantic error items: no body is `missing`,
 * JSON that does not parse is `json_invalid` at the character where Python's decoder stopped,
 * a value that is not a list is `list_type`, every item that is not a string is
 * `string_type`. The validator is handed the operation without its body (request-validation.ts):
 * its messages for these cases are not pydantic's.
 */
import type { Request, RequestHandler } from 'express';
import type { ValidationError } from '../contract';
import { parseJsonText } from '../request-value';
import { HttpError } from './errors';
import { matchedRequest } from './request-validation';

/** Bodies past this size are refused with 413 (the reference reads any size): a list of ids far longer than any conversation fits. */
export const MAX_REQUEST_BODY_BYTES = 8 * 1024 * 1024;

const JSON_MEDIA_TYPE = /^\s*application\/(json|[^;\s]*\+json)\s*(;|$)/i;

const BODY = Symbol('requestBody');

/**
 * The body as read: its value, or pydantic's items for a body that is not what the
 * contract declares. FastAPI reports those after the path's own errors, and only once the
 * conversation is found (its lookup runs first), so the error path and the handler answer them.
 */
export type RequestBody = { ok: true; value: unknown } | { ok: false; problems: ValidationError[] };

/** The body parseRequestBody read, for the handler and the error path; undefined for an operation that takes none. */
export function requestBodyOf(req: Request): RequestBody | undefined {
  return (req as Request & { [BODY]?: RequestBody })[BODY];
}

/**
 * Reads the body of an operation that takes one. JSON that does not parse is answered at
 * once (FastAPI decodes the body before it looks at anything else); other problems are kept.
 */
export function parseRequestBody(): RequestHandler {
  return (req, _res, next) => {
    const schema = matchedRequest(req)?.route.requestBodySchema;
    if (!schema) return next();
    const chunks: Buffer[] = [];
    let length = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > MAX_REQUEST_BODY_BYTES && !refused) {
        refused = true;
        next(new HttpError(413, { detail: 'Request Too Large' }));
      }
      if (!refused) chunks.push(chunk);
    });
    req.on('error', (error) => {
      if (!refused) next(error);
      refused = true;
    });
    req.on('end', () => {
      if (refused) return;
      const body = readListOfStrings(Buffer.concat(chunks), req.get('content-type'));
      if (body === NESTED_TOO_DEEP) return next(new HttpError(400, { detail: 'There was an error parsing the body' }));
      if (!body.ok && body.problems[0]?.type === 'json_invalid') return next(new HttpError(422, { detail: body.problems }));
      (req as Request & { [BODY]?: RequestBody })[BODY] = body;
      next();
    });
  };
}

/** A body nested deeper than Python's decoder reads: FastAPI answers the `RecursionError` with a 400, before anything else. */
const NESTED_TOO_DEEP = Symbol('nested too deep');

/** A body declared `list[str]`, or what pydantic says of it. */
function readListOfStrings(bytes: Buffer, contentType: string | undefined): RequestBody | typeof NESTED_TOO_DEEP {
  const failed = (...problems: ValidationError[]): RequestBody => ({ ok: false, problems });
  if (bytes.length === 0) return failed({ type: 'missing', loc: ['body'], msg: 'Field required', input: null });
  const text = bytes.toString('utf8');
  // FastAPI reads a body sent as another media type as its bytes, which no list accepts.
  if (contentType === undefined || !JSON_MEDIA_TYPE.test(contentType)) return failed(notAList(text));
  const parsed = parseJsonText(text);
  if (!parsed.ok && 'tooDeep' in parsed) return NESTED_TOO_DEEP;
  if (!parsed.ok)
    return failed({ type: 'json_invalid', loc: ['body', parsed.position], msg: 'JSON decode error', input: {}, ctx: { error: parsed.message } });
  if (!Array.isArray(parsed.value)) return failed(notAList(parsed.value));
  const problems = parsed.value.flatMap((item, index): ValidationError[] =>
    typeof item === 'string' ? [] : [{ type: 'string_type', loc: ['body', index], msg: 'Input should be a valid string', input: item }],
  );
  return problems.length > 0 ? failed(...problems) : { ok: true, value: parsed.value };
}

function notAList(input: unknown): ValidationError {
  return { type: 'list_type', loc: ['body'], msg: 'Input should be a valid list', input };
}
