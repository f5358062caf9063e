/**
 * Sends a conversation's trace to an OTLP/HTTP collector in protobuf, a batch of spans per
 * request. The next batch is made only after the collector answered the previous one, so a
 * slow collector slows the reading of the conversation instead of filling memory. A refusal
 * is reported with the collector's status and the start of its answer; only what OTLP calls
 * retryable (no answer, 429, 502, 503, 504) is tried again, a bounded number of times.
 */
import type { Event } from '../../contract';
import { exportTraceServiceRequest } from './otlp-protobuf';
import { type OtlpSpan, type TracedConversation, TRACE_SCOPE, conversationSpans, traceResource } from './otlp-trace';

/** How the push behaves; each value is a default a caller may change. */
export const PUSH_POLICY = {
  /** Spans per request: well below collectors' usual request size limits for spans with long outputs. */
  spansPerRequest: 256,
  /** Attempts per request, the first included. */
  attempts: 4,
  /** The wait before the second attempt, doubled before each later one. */
  firstRetryDelayMs: 500,
  /** The longest a collector's `Retry-After` is honoured. */
  longestRetryDelayMs: 30_000,
  /** How long one request may take before it counts as unanswered. */
  requestTimeoutMs: 60_000,
};

export type PushPolicy = typeof PUSH_POLICY;

export interface PushedTrace {
  spans: number;
  requests: number;
}

/** A collector refused a batch, or never answered it within the attempts allowed. */
export class PushError extends Error {
  constructor(
    message: string,
    /** The collector's last HTTP status; undefined when it never answered. */
    readonly status: number | undefined,
  ) {
    super(message);
    this.name = 'PushError';
  }
}

/**
 * The collector URL for traces: an endpoint given as OTLP's base (`http://host:4318`,
 * Langfuse's `/api/public/otel`) gets `/v1/traces`, as OTLP exporters append it.
 */
export function tracesUrl(endpoint: string): URL {
  const url = new URL(endpoint);
  if (!url.pathname.endsWith('/v1/traces')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  return url;
}

export async function pushConversationTrace(
  endpoint: URL,
  conversation: TracedConversation,
  events: AsyncIterable<Event>,
  options: { headers?: Record<string, string>; policy?: Partial<PushPolicy>; onBatch?: (pushed: PushedTrace) => void } = {},
): Promise<PushedTrace> {
  const policy = { ...PUSH_POLICY, ...options.policy };
  const pushed: PushedTrace = { spans: 0, requests: 0 };
  let batch: OtlpSpan[] = [];
  const send = async (): Promise<void> => {
    await postBatch(endpoint, exportTraceServiceRequest(traceResource(), TRACE_SCOPE, batch), options.headers ?? {}, policy);
    pushed.spans += batch.length;
    pushed.requests += 1;
    batch = [];
    options.onBatch?.(pushed);
  };
  for await (const span of conversationSpans(conversation, events)) {
    batch.push(span);
    if (batch.length >= policy.spansPerRequest) await send();
  }
  if (batch.length > 0) await send();
  return pushed;
}

const RETRYABLE = new Set([429, 502, 503, 504]);

async function postBatch(endpoint: URL, body: Buffer, headers: Record<string, string>, policy: PushPolicy): Promise<void> {
  let delay = policy.firstRetryDelayMs;
  for (let attempt = 1; ; attempt += 1) {
    let failure: PushError;
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-protobuf' },
        body: new Blob([new Uint8Array(body)]),
        signal: AbortSignal.timeout(policy.requestTimeoutMs),
      });
      const answer = await response.text();
      if (response.ok) return;
      failure = new PushError(
        `the collector at ${endpoint.href} answered ${response.status} ${response.statusText}${excerpt(answer)}`,
        response.status,
      );
      if (!RETRYABLE.has(response.status)) throw failure;
      delay = Math.max(delay, retryAfterMs(response.headers.get('retry-after'), policy));
    } catch (error) {
      if (error instanceof PushError && !RETRYABLE.has(error.status ?? 0)) throw error;
      failure = error instanceof PushError ? error : new PushError(`the collector at ${endpoint.href} did not answer (${reason(error)})`, undefined);
    }
    if (attempt >= policy.attempts) throw new PushError(`${failure.message}; gave up after ${attempt} attempts`, failure.status);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay *= 2;
  }
}

function retryAfterMs(header: string | null, policy: PushPolicy): number {
  const seconds = header === null ? Number.NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, policy.longestRetryDelayMs) : 0;
}

function excerpt(answer: string): string {
  const text = answer.trim().replace(/\s+/g, ' ');
  return text ? `: ${text.slice(0, 200)}` : '';
}

function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  return error instanceof Error ? error.message : String(error);
}
