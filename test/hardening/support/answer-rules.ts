/**
 * What any answer of the search operation must look like, whatever was asked: the rules the
 * fuzz tests hold every response to. A rule broken is returned as a sentence, so a failing
 * property prints what was wrong next to the request fast-check shrank it to.
 */
import { unescape } from 'node:querystring';
import { SEARCH_PATH, loadOpenApiDocument } from '../../../src/contract';
import { hyphenate, parseUuid } from '../../../src/search';
import { SERVER_LIMITS } from '../../../src/server/listen';
import { createContractAjv, validationErrors, validatorAt } from '../../contract/contract-schema';
import { QUERY_NAMES, isWellFormedTarget } from './hostile-requests';
import type { RawResponse } from './raw-http';

const ajv = createContractAjv();
const responsePointer = (status: number) => `/paths/${SEARCH_PATH.replaceAll('/', '~1')}/get/responses/${status}/content/application~1json/schema`;
const CONTRACT_STATUSES = [200, 404, 422] as const;
const bodyValidators = new Map(CONTRACT_STATUSES.map((status) => [status as number, validatorAt(ajv, responsePointer(status))]));

/** Node's limit on the request line plus headers; beyond it the answer is 431. */
const HEADER_LIMIT_BYTES = SERVER_LIMITS.maxHeaderSize;
const SEARCH_TARGET = /^\/api\/conversations\/([^/?#]+)\/events\/search\/?(?:[?#]|$)/;
/** The search's parameters, and those of the operations a fuzzed search path can turn into (the catalog's, when a `?` or `#` cuts it short). */
const DECLARED = new Set<string>(['conversation_id', ...QUERY_NAMES, ...catalogParameterNames()]);

function catalogParameterNames(): string[] {
  const document = loadOpenApiDocument();
  return ['/api/conversations', '/api/conversations/{conversation_id}'].flatMap((template) =>
    (
      (document.paths[template as keyof typeof document.paths] as { get?: { parameters?: { name?: string }[] } } | undefined)?.get?.parameters ?? []
    ).map((parameter) => parameter.name ?? ''),
  );
}

export interface AnswerContext {
  /** The request target as sent. */
  target: string;
  /** Bytes of the request line and headers, to tell an oversized request. */
  headBytes: number;
  /** 32-hex ids of the conversations the server holds. */
  knownHex: ReadonlySet<string>;
}

/**
 * The problems with `response` as an answer to `context.target`; none when it is right:
 * - a well-formed request gets 200, 404 or 422 with a JSON body the contract declares for
 *   that status; a request line with bytes HTTP forbids may get Node's bare 400 instead, an
 *   oversized one Node's 431; never a 5xx;
 * - a 200 only ever comes from `/api/conversations/<id>/events/search` whose id, decoded as
 *   the reference decodes it, names a conversation the server holds, and holds no more
 *   items than a plain-digits `limit` allows (a `limit` out of 1..100 is never a 200);
 * - a 404 names either no route or a conversation id the server does not hold;
 * - a 422 lists declared parameters only, each once.
 */
export function answerProblems(response: RawResponse, context: AnswerContext): string[] {
  if (response.status === 431 && context.headBytes > HEADER_LIMIT_BYTES - 1024) return [];
  if (response.status === 400 && !isWellFormedTarget(context.target))
    return response.body === '' ? [] : [`a parser 400 has a body: ${response.body.slice(0, 200)}`];
  if (response.status === 200 && CATALOG_GET_TARGET.test(context.target)) return catalogGetProblems(response, context);
  const validate = bodyValidators.get(response.status);
  if (!validate) return [`status ${response.status} is not an answer of the search operation`];
  if (!/^application\/json\b/.test(response.headers['content-type'] ?? '')) return [`content-type is ${response.headers['content-type']}`];
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return [`body is not JSON: ${response.body.slice(0, 200)}`];
  }
  const schemaErrors = validationErrors(validate, body);
  if (schemaErrors.length > 0) return [`body does not match the contract's ${response.status} schema: ${JSON.stringify(schemaErrors.slice(0, 3))}`];
  if (response.status === 200) return [...servedConversationProblems(context), ...pageSizeProblems(body as { items: unknown[] }, context.target)];
  if (response.status === 404) return notFoundProblems(body as { detail: string }, context);
  return validationProblems(body as { detail: { loc: (string | number)[] }[] });
}

/** `/api/conversations/{id}`: since the catalog, a target the fuzzer can hit that is not the search. */
const CATALOG_GET_TARGET = /^\/api\/conversations\/([^/?#]+)\/?(?:[?#]|$)/;

/** A 200 for the catalog's get: the conversation asked for, held by the server, as a JSON object naming it. */
function catalogGetProblems(response: RawResponse, { target, knownHex }: AnswerContext): string[] {
  const parsed = parseUuid(unescape(CATALOG_GET_TARGET.exec(target)![1]!));
  if (!parsed.ok || !knownHex.has(parsed.hex)) return [`200 from the catalog for ${target.slice(0, 200)}, which names no conversation held`];
  let body: { id?: unknown };
  try {
    body = JSON.parse(response.body) as { id?: unknown };
  } catch {
    return [`body is not JSON: ${response.body.slice(0, 200)}`];
  }
  return body.id === hyphenate(parsed.hex) ? [] : [`the catalog answered conversation ${String(body.id)} for ${target.slice(0, 200)}`];
}

function servedConversationProblems({ target, knownHex }: AnswerContext): string[] {
  const segment = SEARCH_TARGET.exec(target)?.[1];
  if (segment === undefined) return [`200 for a target that is not the search route: ${target.slice(0, 200)}`];
  const parsed = parseUuid(unescape(segment));
  return parsed.ok && knownHex.has(parsed.hex) ? [] : [`200 for conversation segment ${segment.slice(0, 100)}, which names no conversation held`];
}

function pageSizeProblems(body: { items: unknown[] }, target: string): string[] {
  const query = target.split('#')[0]!.split('?').slice(1).join('?');
  const limit = new URLSearchParams(query).getAll('limit').at(-1);
  const allowed = limit !== undefined && /^\d+$/.test(limit) ? BigInt(limit) : 100n;
  if (allowed < 1n || allowed > 100n) return [`200 for limit=${String(limit).slice(0, 50)}, which is out of range`];
  return BigInt(body.items.length) <= allowed ? [] : [`${body.items.length} items for a limit of ${allowed}`];
}

function notFoundProblems(body: { detail: string }, { knownHex }: AnswerContext): string[] {
  if (body.detail === 'Not Found') return [];
  const named = /^Conversation not found: ([0-9a-f-]{36})$/.exec(body.detail)?.[1];
  if (named === undefined || hyphenate(named.replaceAll('-', '')) !== named) return [`unexpected 404 detail: ${body.detail.slice(0, 200)}`];
  return knownHex.has(named.replaceAll('-', '')) ? [`404 for conversation ${named}, which the server holds`] : [];
}

function validationProblems(body: { detail: { loc: (string | number)[] }[] }): string[] {
  // Items about a request body (the batch get of events declares one) name places in it, not parameters.
  const names = body.detail.filter((item) => item.loc[0] !== 'body').map((item) => String(item.loc[1]));
  if (names.some((name) => !DECLARED.has(name))) return [`422 names undeclared parameters: ${names.join(', ')}`];
  return new Set(names).size === names.length ? [] : [`422 names a parameter twice: ${names.join(', ')}`];
}
