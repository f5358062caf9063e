import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseFilterTimestamp, storedTimestampMicros } from '../../../src/search';

export interface UpstreamResponse {
  status: number;
  /** Parsed JSON when the body is JSON (or unreadable as JSON: then its text), otherwise its bytes. */
  body: unknown;
  /** The Content-Type sent back; application/json when absent. */
  contentType?: string;
}

/** One broken rule. Each hook sees the request URL (path and query) and may change one thing. */
export interface Fault {
  /** Rewrites the request before it goes upstream, or answers it without asking upstream. */
  request?(url: URL): URL | UpstreamResponse;
  /** Changes the upstream response. */
  response?(url: URL, response: UpstreamResponse): UpstreamResponse;
}

export interface FaultInjector {
  url: string;
  stop(): Promise<void>;
}

/**
 * A proxy in front of our real server that breaks exactly one rule, so a faulty server
 * is "our server with one bug" rather than a hand-written fake that could differ in ten
 * other ways.
 */
export async function startFaultInjector(upstream: string, fault: Fault): Promise<FaultInjector> {
  return listenWith(upstream, () => ({ fault, url: undefined }));
}

/** The prefix under which the router applies one fault: `/fault/<name>/api/...`. */
export const FAULT_PREFIX = '/fault/';

/**
 * One proxy for many faults, each under a path prefix of its own (`<url>/fault/<name>` is a
 * server with that fault): every fault of a table runs through one process, and a client given
 * that prefix as its base URL sees nothing of the others.
 */
export async function startFaultRouter(upstream: string, faults: Record<string, Fault>): Promise<FaultInjector> {
  return listenWith(upstream, (incoming) => {
    const match = /^\/fault\/([^/]+)(\/.*)?$/.exec(incoming.pathname);
    const fault = match ? faults[decodeURIComponent(match[1]!)] : undefined;
    if (!match || !fault) return undefined;
    const url = new URL(incoming);
    url.pathname = match[2] ?? '/';
    return { fault, url };
  });
}

type Route = (incoming: URL) => { fault: Fault; url: URL | undefined } | undefined;

async function listenWith(upstream: string, route: Route): Promise<FaultInjector> {
  const server = http.createServer((req, res) => {
    const incoming = new URL(req.url ?? '/', 'http://injector');
    const routed = route(incoming);
    if (!routed) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'Not Found' }));
      return;
    }
    void forward(upstream, routed.fault, req, routed.url ?? incoming).then(
      ({ status, body, contentType }) => {
        res.writeHead(status, { 'content-type': contentType ?? 'application/json' });
        res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
      },
      (error: unknown) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(error));
      },
    );
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function forward(upstream: string, fault: Fault, req: http.IncomingMessage, incoming: URL): Promise<UpstreamResponse> {
  const rewritten = fault.request ? fault.request(incoming) : incoming;
  if (!(rewritten instanceof URL)) return rewritten;
  const headers: http.OutgoingHttpHeaders = {};
  for (const name of ['x-session-api-key', 'content-type']) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
  // A GET may carry a JSON body (the batch get of events); fetch refuses to send one, node:http does not.
  const requestBody = await bodyOf(req);
  const { status, contentType, bytes } = await getUpstream(upstream + rewritten.pathname + rewritten.search, headers, requestBody);
  // A download (a zip, an export) passes as its bytes and its own Content-Type; JSON is parsed for the faults to change.
  const body = contentType === undefined || contentType.includes('json') ? parseOrText(bytes.toString('utf8')) : bytes;
  const received: UpstreamResponse = { status, body, ...(contentType === undefined ? {} : { contentType }) };
  return fault.response ? fault.response(incoming, received) : received;
}

async function bodyOf(stream: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function getUpstream(url: string, headers: http.OutgoingHttpHeaders, body: Buffer): Promise<{ status: number; contentType?: string; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'GET', headers: body.length > 0 ? { ...headers, 'content-length': body.length } : headers },
      (response) => {
        bodyOf(response).then((bytes) => resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'], bytes }), reject);
      },
    );
    request.on('error', reject);
    request.end(body.length > 0 ? body : undefined);
  });
}

function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

// ---- the faults ---------------------------------------------------------------------------

type Page = { items: Record<string, unknown>[]; next_page_id?: unknown };

function isPage(response: UpstreamResponse): response is { status: number; body: Page } {
  return response.status === 200 && typeof response.body === 'object' && response.body !== null && Array.isArray((response.body as Page).items);
}

/** Changes pages only; everything else passes through. */
function onPages(change: (url: URL, page: Page) => Page): Fault['response'] {
  return (url, response) => (isPage(response) ? { status: 200, body: change(url, structuredClone(response.body)) } : response);
}

/** The message text as written, not lower-cased: what a case-sensitive server would search. */
function textAsWritten(item: Record<string, unknown>): string {
  const message = item['llm_message'] as { content?: { text?: string }[]; reasoning_content?: string } | undefined;
  const extended = (item['extended_content'] as { text?: string }[] | undefined) ?? [];
  return [...(message?.content ?? []), ...extended].map((part) => part.text ?? '').join(' ') + (message?.reasoning_content ?? '');
}

/** What follows `/events/` in the path: `search`, `count` or an event id. */
function eventsTail(url: URL): string | undefined {
  return /\/events\/([^/]+)$/.exec(url.pathname)?.[1];
}

const isGetEvent = (url: URL) => !['search', 'count', undefined].includes(eventsTail(url));
const isCount = (url: URL) => eventsTail(url) === 'count';

/** A `timestamp__gte` or `timestamp__lt` that does not parse. */
function hasMalformedTimestamp(url: URL): boolean {
  return ['timestamp__gte', 'timestamp__lt'].some((name) => {
    const value = url.searchParams.get(name);
    return value !== null && !parseFilterTimestamp(value).ok;
  });
}

/** Changes the answers of one operation only. */
function onOperation(matches: (url: URL) => boolean, change: (url: URL, response: UpstreamResponse) => UpstreamResponse): Fault['response'] {
  return (url, response) => (matches(url) ? change(url, response) : response);
}

const ROUTE_NOT_FOUND: UpstreamResponse = { status: 404, body: { detail: 'Not Found' } };
const SERVER_ERROR: UpstreamResponse = { status: 500, body: { detail: 'Internal Server Error' } };

/**
 * One operation broken one way at a time, each fault touching that operation's answers only:
 * what test/contract/spec-edit-loop.test.ts injects into the operation it adds to the contract.
 */
export function operationFaults(isOperation: (url: URL) => boolean, hasBadParameter: (url: URL) => boolean) {
  const onSuccess = (change: (response: UpstreamResponse) => UpstreamResponse) =>
    onOperation(isOperation, (_url, response) => (response.status === 200 ? change(response) : response));
  return {
    serverErrorOnBadParameter: { request: (url: URL) => (isOperation(url) && hasBadParameter(url) ? SERVER_ERROR : url) },
    undeclaredStatus: { response: onSuccess((response) => ({ ...response, status: 203 })) },
    bodyBreaksSchema: { response: onSuccess(() => ({ status: 200, body: { events: [] } })) },
    wrongContentType: { response: onSuccess((response) => ({ ...response, contentType: 'text/plain' })) },
  } satisfies Record<string, Fault>;
}

export const FAULTS = {
  /** Passes everything through: proves the proxy itself changes nothing. */
  none: {},

  /** The next page starts with the last event of this one. */
  duplicateAtPageSeam: {
    response: onPages((_url, page) => {
      const last = page.items[page.items.length - 1];
      return typeof page.next_page_id === 'string' && last ? { ...page, next_page_id: last['id'] } : page;
    }),
  },

  /** Every page fetched with a page_id loses its first event. */
  skippedEventBetweenPages: {
    response: onPages((url, page) => (url.searchParams.has('page_id') ? { ...page, items: page.items.slice(1) } : page)),
  },

  /** `body` matched case-sensitively. */
  caseSensitiveBody: {
    response: onPages((url, page) => {
      const body = url.searchParams.get('body');
      return body === null ? page : { ...page, items: page.items.filter((item) => textAsWritten(item).includes(body)) };
    }),
  },

  /** `timestamp__gte` treated as `>`. */
  exclusiveTimestampGte: {
    response: onPages((url, page) => {
      const gte = url.searchParams.get('timestamp__gte');
      const parsed = gte === null ? undefined : parseFilterTimestamp(gte);
      if (!parsed?.ok) return page;
      return { ...page, items: page.items.filter((item) => storedTimestampMicros(item['timestamp']) !== parsed.micros) };
    }),
  },

  /** `limit=101` accepted (served as 100), as the reference once did with a 500. */
  limit101Accepted: {
    request: (url: URL) => {
      if (url.searchParams.get('limit') !== '101') return url;
      const changed = new URL(url);
      changed.searchParams.set('limit', '100');
      return changed;
    },
  },

  /** A malformed date crashes the handler. */
  serverErrorOnMalformedDate: {
    request: (url: URL) => (hasMalformedTimestamp(url) ? SERVER_ERROR : url),
  },

  /** The last page says `""` instead of `null`. */
  emptyStringAtEnd: {
    response: onPages((_url, page) => (page.next_page_id === null ? { ...page, next_page_id: '' } : page)),
  },

  /** TIMESTAMP_DESC pages come out ascending within each page. */
  unsortedDescending: {
    response: onPages((url, page) =>
      url.searchParams.get('sort_order') === 'TIMESTAMP_DESC' ? { ...page, items: [...page.items].reverse() } : page,
    ),
  },

  /** Pages are sent as text/plain, bodies unchanged. */
  pagesAsText: {
    response: (_url: URL, response: UpstreamResponse) => (isPage(response) ? { ...response, contentType: 'text/plain; charset=utf-8' } : response),
  },

  /** An event carries a property the contract does not allow. */
  extraPropertyOnEvent: {
    response: onPages((_url, page) =>
      page.items[0] ? { ...page, items: [{ ...page.items[0], unexpected_field: 1 }, ...page.items.slice(1)] } : page,
    ),
  },

  /** An unknown conversation answers 200 with an empty page. */
  okForUnknownConversation: {
    response: (_url: URL, response: UpstreamResponse) =>
      response.status === 404 ? { status: 200, body: { items: [], next_page_id: null } } : response,
  },

  /** A server from before count and get-by-id: their routes are unknown paths. */
  withoutCountAndGetEvent: {
    request: (url: URL) => (eventsTail(url) !== undefined && eventsTail(url) !== 'search' ? ROUTE_NOT_FOUND : url),
  },

  /** count is one too many whenever a filter is given. */
  countOffByOneWithFilters: {
    response: onOperation(
      (url) => eventsTail(url) === 'count' && url.search.length > 1,
      (_url, response) => (response.status === 200 && typeof response.body === 'number' ? { status: 200, body: response.body + 1 } : response),
    ),
  },

  /** get-by-id leaves out the timestamp. */
  getEventDropsTimestamp: {
    response: onOperation(isGetEvent, (_url, response) => {
      if (response.status !== 200 || typeof response.body !== 'object' || response.body === null) return response;
      const { timestamp: _dropped, ...rest } = response.body as Record<string, unknown>;
      return { status: 200, body: rest };
    }),
  },

  /** An unknown event id fails with 500, as the reference does. */
  unknownEventIdIs500: {
    response: onOperation(isGetEvent, (url, response) =>
      response.status === 404 && (response.body as { detail?: unknown }).detail === 'Not Found'
        ? { status: 500, body: { detail: 'Internal Server Error', exception: `'Unknown event_id: ${eventsTail(url)}'` } }
        : response,
    ),
  },

  /** `/events/count` is routed to get-by-id (a route order mistake), while count answers under another spelling. */
  countTakenAsId: {
    request: (url: URL) => {
      if (eventsTail(url) !== 'count' || url.search.length > 1) return url;
      const changed = new URL(url);
      changed.pathname = url.pathname.replace(/\/count$/, '/%63ount');
      return changed;
    },
  },

  /** count fails with 500 on a timestamp it cannot parse. */
  countServerErrorOnMalformedDate: {
    request: (url: URL) => (isCount(url) && hasMalformedTimestamp(url) ? SERVER_ERROR : url),
  },
} satisfies Record<string, Fault>;

export type FaultName = keyof typeof FAULTS;
