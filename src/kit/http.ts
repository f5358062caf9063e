/**
 * Every request the kit sends goes through one transport: it applies the per-request
 * timeout and the total request budget, attributes each exchange to the check that caused
 * it, and tells observers (the schema audit, the `--compare` mirror) about it. Requests
 * are GETs only; the kit never changes a server. A GET may carry a JSON body (the reference
 * 1.58.2 reads the batch get's ids from one); fetch refuses that, so such a request goes
 * out through node:http.
 */
import http from 'node:http';
import https from 'node:https';
import { jsonDepth } from '../json/json-depth';
import { maskSecretText } from '../secrets';

/**
 * What the kit reads of a server at most: a server under test may send anything, an endless
 * body, a frame of any size, JSON nested past any stack, an archive that inflates without
 * end. Past a cap the kit stops reading and reports the cap as a finding.
 */
export const KIT_READ_LIMITS = {
  /** One response body. */
  responseBytes: 64 * 1024 * 1024,
  /** One socket frame. */
  socketFrameBytes: 16 * 1024 * 1024,
  /** What one archive may inflate to, all its entries together (`--compare` reads two). */
  inflatedArchiveBytes: 256 * 1024 * 1024,
  /** How deeply JSON may nest: deeper is not parsed, so no check recurses past its stack. */
  jsonDepth: 1000,
} as const;

export interface TransportOptions {
  /** Where the server is, such as `http://127.0.0.1:8000`; a path prefix is kept. */
  baseUrl: string;
  /** Sent as `X-Session-API-Key`; never recorded. */
  sessionApiKey?: string;
  timeoutMs: number;
  /** Requests the whole run may send; past it every request fails with `budget`. */
  maxRequests: number;
  /** Bytes of one response read at most; KIT_READ_LIMITS by default. */
  maxResponseBytes?: number;
  fetch?: typeof fetch;
}

export type JsonBody = { ok: true; value: unknown } | { ok: false; error: string };

/** A request body and its media type. */
export interface RequestBody {
  contentType: string;
  text: string;
}

/** One request and its response, as received. */
export interface Exchange {
  seq: number;
  /** GET unless a check asked for another method. */
  method: string;
  /** The check that sent it (`discovery` before the checks run). */
  checkId: string;
  /** Path and query, relative to the base URL, exactly as sent. */
  path: string;
  url: string;
  status: number;
  contentType: string | null;
  /** The request's body, when it had one (a GET's JSON body). */
  requestBody?: RequestBody;
  /** The body, cut to its first characters once the exchange is kept (see `slim`). */
  bodyText: string;
  /** The body's bytes, for a response that is not text or JSON (a file such as a zip); dropped once the exchange is kept. */
  bodyBytes?: Buffer;
  bodyLength: number;
  json: JsonBody;
  durationMs: number;
}

/** `too-large`: the response was longer than the kit reads (KIT_READ_LIMITS). */
export type FailureReason = 'unreachable' | 'timeout' | 'budget' | 'too-large';

/** A request that got no response. */
export interface RequestFailure {
  reason: FailureReason;
  path: string;
  url: string;
  message: string;
}

export type GetResult = { ok: true; exchange: Exchange } | { ok: false; failure: RequestFailure };

export type ExchangeObserver = (exchange: Exchange) => void | Promise<void>;

export const SESSION_KEY_HEADER = 'X-Session-API-Key';

export interface Transport {
  readonly baseUrl: string;
  /** Sends a GET of `path` (path and query, already encoded as wanted) relative to the base URL, with a body when given. */
  get(path: string, body?: RequestBody): Promise<GetResult>;
  /** Sends a GET of an absolute URL built by someone else (the typed client), with its headers. */
  getUrl(url: string, headers?: Headers): Promise<GetResult>;
  /**
   * Sends another method, without a body, to `path` relative to the base URL: only to ask for
   * what the contract does not declare (a method a path does not have), never to change a server.
   */
  request(method: string, path: string): Promise<GetResult>;
  /** Names the check whose requests follow. */
  setCheck(checkId: string): void;
  /** Called after every exchange, in order. */
  observe(observer: ExchangeObserver): void;
  readonly sent: number;
  readonly maxRequests: number;
}

export function createTransport(options: TransportOptions): Transport {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const observers: ExchangeObserver[] = [];
  let sent = 0;
  let checkId = 'discovery';

  async function getUrl(url: string, headers: Headers = new Headers(), method = 'GET', body?: RequestBody): Promise<GetResult> {
    const path = url.startsWith(baseUrl) ? url.slice(baseUrl.length) : url;
    if (sent >= options.maxRequests) {
      return { ok: false, failure: { reason: 'budget', path, url, message: `request budget of ${options.maxRequests} used up` } };
    }
    sent += 1;
    if (options.sessionApiKey !== undefined) headers.set(SESSION_KEY_HEADER, options.sessionApiKey);
    const started = performance.now();
    try {
      const response =
        body === undefined
          ? await doFetch(url, { method, headers, redirect: 'manual', signal: AbortSignal.timeout(options.timeoutMs) })
          : await sendWithBody(url, method, headers, body, options.timeoutMs, options.maxResponseBytes ?? KIT_READ_LIMITS.responseBytes);
      const cap = options.maxResponseBytes ?? KIT_READ_LIMITS.responseBytes;
      const bytes = response === TOO_LARGE ? undefined : await readCapped(response, cap);
      if (response === TOO_LARGE || bytes === undefined) {
        const message = `the response is larger than the kit reads (${cap} bytes): it stopped reading there`;
        return { ok: false, failure: { reason: 'too-large', path, url, message } };
      }
      const contentType = response.headers.get('content-type');
      const bodyBytes = isTextual(contentType) ? undefined : bytes;
      const bodyText = bytes.toString('utf8');
      const exchange: Exchange = {
        seq: sent,
        method,
        checkId,
        path,
        url,
        ...(body === undefined ? {} : { requestBody: body }),
        status: response.status,
        contentType,
        bodyText,
        ...(bodyBytes === undefined ? {} : { bodyBytes }),
        bodyLength: bodyText.length,
        json: parseJson(bodyText),
        durationMs: Math.round(performance.now() - started),
      };
      for (const observer of observers) await observer(exchange);
      return { ok: true, exchange };
    } catch (error) {
      return { ok: false, failure: describeFailure(error, path, url, options.timeoutMs) };
    }
  }

  return {
    baseUrl,
    get: (path, body) => getUrl(baseUrl + path, new Headers(), 'GET', body),
    getUrl: (url, headers) => getUrl(url, headers),
    request: (method, path) => getUrl(baseUrl + path, new Headers(), method.toUpperCase()),
    setCheck: (id) => {
      checkId = id;
    },
    observe: (observer) => {
      observers.push(observer);
    },
    get sent() {
      return sent;
    },
    maxRequests: options.maxRequests,
  };
}

/** The body, or undefined once it passes `cap` bytes (the rest is not read: the connection is cancelled). */
async function readCapped(response: Response, cap: number): Promise<Buffer | undefined> {
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, length);
    length += value.length;
    if (length > cap) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
}

/** One request with a body, through node:http, answered as a fetch Response so that one path reads every answer. */
/** What sendWithBody answers when the response runs past the cap: it stopped reading there. */
const TOO_LARGE = Symbol('too large');

/**
 * A request with a body, which fetch cannot send on a GET. As with fetch, the whole exchange
 * must end within `timeoutMs` (a server that trickles its body is not waited on for ever), and
 * no more than `cap` bytes of the answer are held.
 */
function sendWithBody(
  url: string,
  method: string,
  headers: Headers,
  body: RequestBody,
  timeoutMs: number,
  cap: number,
): Promise<Response | typeof TOO_LARGE> {
  const outgoing: Record<string, string> = { 'content-type': body.contentType, 'content-length': String(Buffer.byteLength(body.text)) };
  headers.forEach((value, name) => {
    outgoing[name] = value;
  });
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const timedOut = () => request.destroy(Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }));
    const deadline = setTimeout(timedOut, timeoutMs);
    const request = client.request(url, { method, headers: outgoing, timeout: timeoutMs }, (response) => {
      const chunks: Buffer[] = [];
      let length = 0;
      response.on('data', (chunk: Buffer) => {
        length += chunk.length;
        if (length > cap) {
          clearTimeout(deadline);
          request.destroy();
          resolve(TOO_LARGE);
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', reject);
      response.on('end', () => {
        clearTimeout(deadline);
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') answerHeaders.set(name, value);
        resolve(new Response(Buffer.concat(chunks), { status: response.statusCode ?? 0, headers: answerHeaders }));
      });
    });
    request.on('timeout', timedOut);
    request.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    request.end(body.text);
  });
}

/** Text, JSON of any kind (`+json`, `x-ndjson`), or no content type at all: read as text. Anything else (`application/octet-stream`) is kept as bytes too. */
function isTextual(contentType: string | null): boolean {
  if (contentType === null) return true;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type.startsWith('text/') || type.endsWith('json');
}

export function parseJson(text: string): JsonBody {
  const depth = jsonDepth(text);
  if (depth > KIT_READ_LIMITS.jsonDepth) {
    return { ok: false, error: `it nests ${depth} levels deep, deeper than the kit reads (${KIT_READ_LIMITS.jsonDepth})` };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

function describeFailure(error: unknown, path: string, url: string, timeoutMs: number): RequestFailure {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return { reason: 'timeout', path, url, message: `no response within ${timeoutMs} ms` };
  }
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return { reason: 'unreachable', path, url, message: `request failed (${detail})` };
}

const KEPT_BODY_CHARACTERS = 2000;

/**
 * The exchange without most of its body, for keeping: findings and walks outlive the
 * request, and whole pages of a few hundred events would add up over a run.
 */
export function slim(exchange: Exchange): Exchange {
  const { bodyBytes: _bytes, ...kept } = exchange;
  if (kept.bodyText.length <= KEPT_BODY_CHARACTERS) return kept;
  // Why a body was not JSON is kept: a report says it.
  return { ...kept, bodyText: kept.bodyText.slice(0, KEPT_BODY_CHARACTERS), json: kept.json.ok ? { ok: false, error: 'body not kept' } : kept.json };
}

/** The first `max` characters of a response body, on one line, secrets masked (src/secrets), for reports. */
export function excerptOf(exchange: Pick<Exchange, 'bodyText' | 'bodyLength'>, max = 400): string {
  const flat = maskSecretText(exchange.bodyText.slice(0, max + 200)).replace(/\s*\n\s*/g, ' ');
  if (flat.length <= max && exchange.bodyLength <= exchange.bodyText.length) return flat;
  return `${flat.slice(0, max)}... (${exchange.bodyLength} characters)`;
}
