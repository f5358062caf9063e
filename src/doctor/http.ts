import { readPath } from './data-path';

/** One request the doctor sends to a model server. The key travels only in the Authorization header. */
export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  apiKey: string;
  timeoutMs: number;
  json?: unknown;
}

/** What came back: an answer with its status and body (parsed JSON when it is JSON), or why nothing did. */
export type HttpOutcome = { kind: 'answered'; url: string; status: number; body: unknown } | { kind: 'unreachable'; url: string; reason: string };

/**
 * Sends one request with global fetch and gives up after `timeoutMs` (reading the body included), so
 * a silent server never hangs the doctor. Network failures come back as an `unreachable` value naming
 * the cause (`ECONNREFUSED`, `ENOTFOUND`, no answer within N s); this function does not throw.
 */
export async function sendRequest(request: HttpRequest): Promise<HttpOutcome> {
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: requestHeaders(request),
      body: request.json === undefined ? undefined : JSON.stringify(request.json),
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    const text = await response.text();
    return { kind: 'answered', url: request.url, status: response.status, body: parseBody(text) };
  } catch (error) {
    return { kind: 'unreachable', url: request.url, reason: describeNetworkError(error, request.timeoutMs) };
  }
}

/** The body of a 2xx answer; undefined for any other status or no answer. */
export function successBody(outcome: HttpOutcome): { body: unknown } | undefined {
  return outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300 ? { body: outcome.body } : undefined;
}

/** True when the server refused the key: 401 or 403. */
export function isKeyRejected(outcome: HttpOutcome): boolean {
  return outcome.kind === 'answered' && (outcome.status === 401 || outcome.status === 403);
}

function requestHeaders(request: HttpRequest): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${request.apiKey}`, accept: 'application/json' };
  if (request.json !== undefined) headers['content-type'] = 'application/json';
  return headers;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

// Duck-typed on purpose: fetch's errors come from Node's own realm, where `instanceof Error` of
// another realm (jest's sandbox, for one) is false.
function describeNetworkError(error: unknown, timeoutMs: number): string {
  if (readPath(error, ['name']) === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  for (const detail of [readPath(error, ['cause', 'code']), readPath(error, ['cause', 'message']), readPath(error, ['message'])]) {
    if (typeof detail === 'string' && detail !== '') return detail;
  }
  return String(error);
}

/** A short, single-line excerpt of a server's error body, for quoting it in a message. */
export function describeBody(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const oneLine = (text ?? '').replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_EXCERPT ? `${oneLine.slice(0, MAX_EXCERPT)}...` : oneLine;
}

const MAX_EXCERPT = 200;
