/**
 * Judges one request and its response against the contract, with nothing else known: the
 * proxy's rules. The operation must be one the contract declares, the status declared for
 * it, the body valid for that status (each event against its own kind's schema), a page's
 * `next_page_id` usable by a client, and no 5xx for anything a client sends. With
 * `judgeRequests` (the proxy's), a request that breaks a parameter's rule must not be
 * answered 2xx: the run sends such requests itself and judges their answers in its own checks.
 */
import { isDeepStrictEqual } from 'node:util';
import { type ContractOperation, type OpenApiDocument, declaresStatus, operationTable, responseFor } from '../contract';
import { parseJson } from './http';
import { valueProblem } from './parameter-values';
import type { ResponseValidator } from './schema-validator';

export interface JudgedExchange {
  method: string;
  /** Path and query as the client sent them. */
  target: string;
  status: number;
  /** The response's Content-Type header, null when it had none; undefined when not known (not judged then). */
  contentType?: string | null;
  /** The response body, or undefined when it was too large to keep. */
  body: string | undefined;
}

export interface ExchangeVerdict {
  operationId: string | undefined;
  violations: string[];
  /** The body read as JSON, when it was. */
  json: unknown;
}

export interface JudgeOptions {
  /** Also judge the request: one breaking a parameter's rule is a violation when answered 2xx. */
  judgeRequests?: boolean;
}

export function createExchangeJudge(
  document: OpenApiDocument,
  validator: ResponseValidator,
  options: JudgeOptions = {},
): (exchange: JudgedExchange) => ExchangeVerdict {
  const table = operationTable(document);
  return (exchange) => {
    const url = new URL(exchange.target, 'http://judge.invalid');
    const match = table.match(exchange.method, url.pathname);
    const parsed = exchange.body === undefined ? undefined : parseJson(exchange.body);
    const json = parsed?.ok ? parsed.value : undefined;
    const violations: string[] = [];
    if (exchange.status >= 500) violations.push(`the server answered ${exchange.status}: a client's request must never get a 5xx`);
    if (!match) {
      violations.push(`no operation of the contract is ${exchange.method} ${url.pathname}`);
      return { operationId: undefined, violations, json };
    }
    const { operation } = match;
    if (options.judgeRequests && exchange.status >= 200 && exchange.status < 300)
      violations.push(...acceptedInvalidRequest(operation, match.pathParameters, url.searchParams, exchange.status));
    const contentTypeProblem = contentTypeViolation(operation, exchange);
    if (contentTypeProblem) violations.push(contentTypeProblem);
    if (!declaresStatus(operation, exchange.status)) {
      violations.push(`status ${exchange.status} is not declared for ${operation.operationId} (declared: ${operation.statuses.join(', ')})`);
    } else if (parsed && !cameAsOtherThanJson(exchange.contentType) && validator.statusesOf(operation.operationId).includes(exchange.status)) {
      if (!parsed.ok) violations.push(`the ${exchange.status} body is not JSON: ${parsed.error}`);
      else {
        const verdict = validator.validate(operation.operationId, exchange.status, parsed.value);
        if (verdict.valid === false) violations.push(...verdict.errors.map((error) => `body: ${error}`));
      }
    }
    if (exchange.status === 200) violations.push(...pagingViolations(operation, url.searchParams, json));
    return { operationId: operation.operationId, violations, json };
  };
}

/**
 * The answer a server gives for a route it does not have at all: FastAPI's, and ours, is
 * `404 {"detail":"Not Found"}`. The kit reports such an operation as not implemented rather
 * than as answering with an undeclared status.
 */
export function answersUnknownRoute(exchange: { status: number; json: { ok: true; value: unknown } | { ok: false } }): boolean {
  return exchange.status === 404 && exchange.json.ok && isDeepStrictEqual(exchange.json.value, { detail: 'Not Found' });
}

/** A response whose declared body has media types must carry one of them. */
export function contentTypeViolation(operation: ContractOperation, exchange: Pick<JudgedExchange, 'status' | 'contentType'>): string | undefined {
  if (exchange.contentType === undefined) return undefined;
  const declared = responseFor(operation, exchange.status)?.mediaTypes ?? [];
  if (declared.length === 0) return undefined;
  const received = (exchange.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (declared.some((mediaType) => mediaTypeCovers(mediaType.toLowerCase(), received))) return undefined;
  const shown = exchange.contentType === null ? 'no Content-Type' : `Content-Type ${JSON.stringify(exchange.contentType)}`;
  return `the ${exchange.status} answer has ${shown}; ${operation.operationId} declares ${declared.join(', ')} for it`;
}

/**
 * Whether a body came as another media type than JSON (JSON lines or Markdown from an
 * operation that also offers JSON files): the JSON schema declared beside it does not judge it.
 */
export function cameAsOtherThanJson(contentType: string | null | undefined): boolean {
  if (contentType === undefined || contentType === null) return false;
  const received = contentType.split(';')[0]!.trim().toLowerCase();
  return received !== 'application/json' && !received.endsWith('+json');
}

/** `application/json` covers itself; `application/*` and `*\/*` cover a family. */
function mediaTypeCovers(declared: string, received: string): boolean {
  if (declared === received || declared === '*/*') return true;
  return declared.endsWith('/*') && received.startsWith(declared.slice(0, -1));
}

/** The status the contract declares for a rejected request: 422 (FastAPI's), else 400, else the first 4xx it declares but 401 and 404. */
export function rejectionStatus(operation: ContractOperation): string | undefined {
  const declared = operation.statuses;
  return (
    ['422', '400'].find((status) => declared.includes(status)) ??
    declared.find((status) => /^4(\d\d|XX)$/i.test(status) && status !== '401' && status !== '404')
  );
}

/** Each parameter rule the request breaks, said once as a violation of the 2xx that accepted it. */
function acceptedInvalidRequest(
  operation: ContractOperation,
  pathParameters: Record<string, string>,
  query: URLSearchParams,
  status: number,
): string[] {
  const rejection = rejectionStatus(operation);
  if (rejection === undefined) return [];
  const problems: string[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    // A query parameter given twice is read as its last value, as FastAPI reads it.
    const sent = parameter.in === 'path' ? pathParameters[parameter.name] : query.getAll(parameter.name).at(-1);
    if (sent === undefined) {
      if (parameter.required) problems.push(`the required ${parameter.in} parameter ${parameter.name} is missing`);
      continue;
    }
    const problem = valueProblem(parameter.schema, sent);
    if (problem) problems.push(`${parameter.in} parameter ${parameter.name} ${JSON.stringify(sent)} is ${problem}`);
  }
  return problems.map((problem) => `${problem}, yet the request was answered ${status}: the contract answers it with ${rejection}`);
}

/** `next_page_id` rules of a page: a client can follow it and stops at its end. */
function pagingViolations(operation: ContractOperation, query: URLSearchParams, body: unknown): string[] {
  if (!operation.parameters.some((parameter) => parameter.name === 'page_id')) return [];
  if (typeof body !== 'object' || body === null || !Array.isArray((body as { items?: unknown }).items)) return [];
  const page = body as { items: unknown[]; next_page_id?: unknown };
  const violations: string[] = [];
  if (page.next_page_id === '')
    violations.push('next_page_id is "": a client testing `!== null` loops forever, one testing truthiness stops early; the last page has null');
  const requested = query.get('page_id');
  if (typeof page.next_page_id === 'string' && page.next_page_id !== '' && page.next_page_id === requested) {
    violations.push(`next_page_id ${JSON.stringify(page.next_page_id)} is the page_id this page was asked with: following it loops forever`);
  }
  // Without `limit`, the page size is the one the contract gives as its default.
  const declaredDefault = operation.parameters.find((parameter) => parameter.in === 'query' && parameter.name === 'limit')?.schema.default;
  const limit = Number(query.get('limit') ?? declaredDefault);
  if (Number.isInteger(limit) && limit > 0 && page.items.length > limit)
    violations.push(`the page holds ${page.items.length} events, more than limit ${limit}`);
  return violations;
}
