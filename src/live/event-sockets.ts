/**
 * `WS /sockets/events/{conversation_id}`, as the reference serves it (docs/reference-behaviour.md,
 * "The events socket"): authentication by header, query or a first `auth` frame; a first
 * `full_state` state update built from the saved state; the stored events resent on request
 * (`resend_mode=all`, or `since` with `after_timestamp`); then every appended event, one
 * JSON text frame each, the bytes a search item has. An archive runs no agent, so a frame
 * sent to it is answered with an error frame and nothing else happens.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import type { ConversationCatalog } from '../catalog/conversation-catalog';
import type { Logger } from '../log';
import { parseBoolean, parseEnum, parseFilterTimestamp, parseUuid } from '../request-value';
import type { SearchCriteria } from '../search';
import { type KnownSecrets, maskedJson } from '../secrets';
import type { EventFeed, FeedEvent } from '../store/event-store';
import { SESSION_KEY_HEADER, sessionKeyMatches } from '../server/session-keys';
import { cutOffStalled, sentWithin } from './stalled-consumer';
import { ConversationFeeds, type FeedSubscriber } from './conversation-feeds';
import { serveSessionSocket, sessionSocketRequest } from './session-socket';

const SOCKET_PATH = /^\/sockets\/events\/([^/]+)\/?$/;
/** An inbound frame larger than this closes the socket (1009): nothing this server takes is that large. */
export const MAX_INBOUND_FRAME_BYTES = 64 * 1024;
/** Resend pages, as the reference resends. */
const RESEND_PAGE = 100;
/** How many looks' worth of appended events a socket's queue bound holds. */
const LOOKS_PER_QUEUE = 4;

export interface SocketLimits {
  /** Sockets one conversation may have; one more is closed 1013 (the reference's limit is 50). */
  readonly maxSocketsPerConversation: number;
  /** How long a socket may take to send its `auth` frame when the key came neither by header nor by query (the reference's 10 s). */
  readonly authFrameTimeoutMs: number;
  /** A consumer this far behind (bytes queued for it) is closed, so a reader that stopped costs bounded memory. */
  readonly maxQueuedBytes: number;
  /** A consumer that has not taken one resent page within this long has stopped reading, and is closed. */
  readonly resendPageTimeoutMs: number;
}

export const SOCKET_LIMITS: SocketLimits = {
  maxSocketsPerConversation: 50,
  authFrameTimeoutMs: 10_000,
  maxQueuedBytes: 8 * 1024 * 1024,
  resendPageTimeoutMs: 30_000,
};
/** What either socket answers a frame that would be a message to the agent: an archive runs none. */
export const READ_ONLY = {
  code: 'ReadOnlyConversation',
  detail: 'This server serves recorded conversations read-only and runs no agent: frames sent to it are not taken as messages.',
} as const;

/** Codes the reference closes with. */
export const CLOSE = {
  authenticationFailed: 4001,
  conversationNotFound: 4004,
  tryAgainLater: 1013,
  policyViolation: 1008,
  goingAway: 1001,
  internalError: 1011,
} as const;

export interface EventSocketsOptions {
  feed: EventFeed | undefined;
  catalog: ConversationCatalog;
  sessionApiKeys: readonly string[];
  logger: Logger;
  limits?: SocketLimits;
}

export interface EventSockets {
  /** Whether the request is for the events socket (any other upgrade is answered as plain HTTP). */
  handles(request: IncomingMessage): boolean;
  /** For the HTTP server's `upgrade` event; answers 404 for any other path. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every socket (1001) and stops the feeds. */
  close(): void;
}

export function createEventSockets(options: EventSocketsOptions): EventSockets {
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_INBOUND_FRAME_BYTES, perMessageDeflate: false });
  const limits = options.limits ?? SOCKET_LIMITS;
  // A look hands out a fraction of what a socket may have queued: one that reads drains it before the next look.
  const feeds = options.feed ? new ConversationFeeds(options.feed, options.logger, limits.maxQueuedBytes / LOOKS_PER_QUEUE) : undefined;
  return {
    handles(request) {
      try {
        const url = new URL(request.url ?? '/', 'http://socket');
        return SOCKET_PATH.test(url.pathname) || sessionSocketRequest(url) !== undefined;
      } catch {
        return false;
      }
    },
    handleUpgrade(request, socket, head) {
      const url = new URL(request.url ?? '/', 'http://socket');
      const session = sessionSocketRequest(url);
      if (session === 'refused') {
        // As uvicorn answers a socket FastAPI closes before accepting it (a path or query value that does not validate).
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      if (session) {
        server.handleUpgrade(request, socket, head, (ws) => {
          ws.on('error', (error) => options.logger.info('session socket error', { error: error.message }));
          serveSessionSocket(ws, request, session, url.searchParams, options, feeds).catch((error: unknown) => {
            options.logger.error('session socket failed', { error: (error as Error).message });
            ws.terminate();
          });
        });
        return;
      }
      const match = SOCKET_PATH.exec(url.pathname);
      if (!match) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      server.handleUpgrade(request, socket, head, (ws) => {
        ws.on('error', (error) => options.logger.info('event socket error', { error: error.message }));
        serveSocket(ws, request, decodedSegment(match[1]!), url.searchParams, options, feeds).catch((error: unknown) => {
          options.logger.error('event socket failed', { error: (error as Error).message });
          ws.terminate();
        });
      });
    },
    close() {
      for (const client of server.clients) client.close(CLOSE.goingAway, 'Server shutting down');
      server.close();
    },
  };
}

interface SocketRequest {
  hex: string;
  resend: { mode: 'none' } | { mode: 'all' } | { mode: 'since'; gte: number | undefined };
}

/** The path and query as the reference validates them; a message naming the parameter when one is wrong. */
function readRequest(conversationId: string, query: URLSearchParams): SocketRequest | string {
  const id = parseUuid(conversationId);
  if (!id.ok) return `conversation_id: Input should be a valid UUID, ${id.message}`;
  const modeText = query.get('resend_mode');
  const mode = modeText === null ? null : parseEnum(['all', 'since'] as const, modeText);
  if (mode !== null && !mode.ok) return `resend_mode: ${mode.message}`;
  const after = query.get('after_timestamp');
  let gte: number | undefined;
  if (after !== null) {
    const parsed = parseFilterTimestamp(after);
    if (!parsed.ok) return `after_timestamp: Input should be a valid datetime or date, ${parsed.message}`;
    gte = parsed.micros;
  }
  const resendAllText = query.get('resend_all');
  const resendAll = resendAllText === null ? null : parseBoolean(resendAllText);
  if (resendAll !== null && !resendAll.ok) return `resend_all: ${resendAll.message}`;
  const effective = mode?.value ?? (resendAll?.value ? 'all' : null);
  if (effective === 'all') return { hex: id.hex, resend: { mode: 'all' } };
  if (effective === 'since') return { hex: id.hex, resend: { mode: 'since', gte } };
  return { hex: id.hex, resend: { mode: 'none' } };
}

/** The path segment decoded; as sent when its escapes do not decode (the id check then names it). */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

async function serveSocket(
  ws: WebSocket,
  request: IncomingMessage,
  conversationId: string,
  query: URLSearchParams,
  options: EventSocketsOptions,
  feeds: ConversationFeeds | undefined,
): Promise<void> {
  const inbound = new InboundFrames(ws);
  const limits = options.limits ?? SOCKET_LIMITS;
  if (!(await authenticate(ws, request, query, options.sessionApiKeys, inbound, limits.authFrameTimeoutMs))) {
    closeSocket(ws, CLOSE.authenticationFailed, 'Authentication failed');
    return;
  }
  const parsed = readRequest(conversationId, query);
  if (typeof parsed === 'string') {
    closeSocket(ws, CLOSE.policyViolation, parsed);
    return;
  }
  if (!feeds) {
    // A store that hands out no events one by one serves no socket.
    closeSocket(ws, CLOSE.internalError, "Live events are not available from this server's store");
    return;
  }
  // Looked up before the feed, so that nothing waits between finding the feed and subscribing to it.
  const known = await options.catalog.knownSecrets(parsed.hex);
  const feed = await feeds.feedFor(parsed.hex);
  if (!feed) {
    closeSocket(ws, CLOSE.conversationNotFound, 'Conversation not found');
    return;
  }
  if (feed.subscribers.size >= limits.maxSocketsPerConversation) {
    closeSocket(ws, CLOSE.tryAgainLater, 'Too many connections for this conversation');
    return;
  }
  const subscriber = new SocketSubscriber(ws, options.logger, parsed.hex, limits, known);
  const subscribedAt = feed.subscribe(subscriber);
  // The client may have gone while the conversation was looked up: then no close event is to come.
  if (ws.readyState !== WebSocket.OPEN) {
    feed.unsubscribe(subscriber);
    return;
  }
  ws.once('close', () => feed.unsubscribe(subscriber));
  inbound.answerWith((frame) => subscriber.answerInbound(frame));
  void subscriber.sendFrame(fullStateFrame(await options.catalog.state(parsed.hex)));
  if (parsed.resend.mode === 'all' || (parsed.resend.mode === 'since' && parsed.resend.gte !== undefined)) {
    const criteria: SearchCriteria = { sortOrder: 'TIMESTAMP', limit: RESEND_PAGE };
    if (parsed.resend.mode === 'since') criteria.gte = parsed.resend.gte;
    await subscriber.resend(options.feed!, parsed.hex, criteria, subscribedAt);
  }
  subscriber.goLive();
}

/** Inbound frames: held for the authentication, then answered one by one. */
export class InboundFrames {
  private readonly waiting: ((frame: string | undefined) => void)[] = [];
  private answer: ((frame: string) => void) | undefined;

  constructor(ws: WebSocket) {
    ws.on('message', (data: RawData, isBinary: boolean) => {
      const text = isBinary ? undefined : rawText(data);
      const waiter = this.waiting.shift();
      if (waiter) waiter(text);
      else if (this.answer) this.answer(text ?? '');
    });
    ws.once('close', () => {
      for (const waiter of this.waiting.splice(0)) waiter(undefined);
    });
  }

  /** The next frame's text; undefined for a binary frame, a close, or nothing within `timeoutMs`. */
  next(timeoutMs: number): Promise<string | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        resolve(undefined);
      }, timeoutMs);
      const waiter = (frame: string | undefined) => {
        clearTimeout(timer);
        resolve(frame);
      };
      this.waiting.push(waiter);
    });
  }

  answerWith(answer: (frame: string) => void): void {
    this.answer = answer;
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

export async function authenticate(
  ws: WebSocket,
  request: IncomingMessage,
  query: URLSearchParams,
  keys: readonly string[],
  inbound: InboundFrames,
  authFrameTimeoutMs: number,
): Promise<boolean> {
  if (keys.length === 0) return true;
  // As the reference: the query parameter first, then the header; a key given either way is final.
  const offered = query.get('session_api_key') ?? headerValue(request, SESSION_KEY_HEADER);
  if (offered !== undefined) return sessionKeyMatches(keys, offered);
  const frame = await inbound.next(authFrameTimeoutMs);
  if (frame === undefined || ws.readyState !== WebSocket.OPEN) return false;
  let message: unknown;
  try {
    message = JSON.parse(frame);
  } catch {
    return false;
  }
  if (typeof message !== 'object' || message === null) return false;
  const { type, session_api_key: key } = message as { type?: unknown; session_api_key?: unknown };
  return type === 'auth' && typeof key === 'string' && sessionKeyMatches(keys, key);
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[value.length - 1] : value;
}

export function closeSocket(ws: WebSocket, code: number, reason: string): void {
  // A close reason is at most 123 bytes.
  if (ws.readyState === WebSocket.OPEN) ws.close(code, Buffer.from(reason).subarray(0, 123).toString());
}

/**
 * One socket's side of a feed. Until its resend is over, appended events wait in its
 * queue; events the resend already sent are not sent again. Whatever is queued for it,
 * in the socket's buffer or here, is bounded: past the bound the consumer is cut off.
 */
class SocketSubscriber implements FeedSubscriber {
  private live = false;
  private readonly waiting: FeedEvent[] = [];
  private waitingBytes = 0;
  /** Ids of events the resend sent that were appended after the subscription began: the live side skips them. */
  private readonly resentLate = new Set<string>();
  /** Inbound frames that came during the resend: the reference answers a frame only after its resend, so they are answered when it is over. */
  private unanswered = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly logger: Logger,
    private readonly hex: string,
    private readonly limits: SocketLimits,
    /** The conversation's known secrets, masked in every frame with the rest of the secret policy (src/secrets). */
    private readonly known: KnownSecrets,
  ) {}

  private frameOf(event: FeedEvent): Buffer {
    return maskedJson(event.json, this.known);
  }

  deliver(event: FeedEvent): void {
    if (!this.live) {
      this.waiting.push(event);
      this.waitingBytes += event.json.length;
      if (this.waitingBytes > this.limits.maxQueuedBytes) this.cutOff();
      return;
    }
    if (this.resentLate.has(event.id)) return;
    void this.sendFrame(this.frameOf(event));
  }

  /** Resolves once the frame has left for the network (or the socket closed). */
  sendFrame(frame: Buffer | string): Promise<void> {
    if (this.ws.readyState !== WebSocket.OPEN) return Promise.resolve();
    const sent = new Promise<void>((resolve) => this.ws.send(frame, { binary: false }, () => resolve()));
    if (this.ws.bufferedAmount > this.limits.maxQueuedBytes) this.cutOff();
    return sent;
  }

  /** Sends the stored events the criteria select, page by page, each page once the previous one is out. */
  async resend(feed: EventFeed, hex: string, criteria: SearchCriteria, subscribedAt: number): Promise<void> {
    let pageId: string | undefined;
    do {
      if (this.ws.readyState !== WebSocket.OPEN) return;
      const page = await feed.searchEach(hex, pageId === undefined ? criteria : { ...criteria, pageId });
      if (!page) return;
      let last: Promise<void> = Promise.resolve();
      for (const event of page.events) {
        // A page of large events is sent as the consumer takes it, not queued past the bound at once.
        if (this.ws.bufferedAmount > 0 && this.ws.bufferedAmount + event.json.length > this.limits.maxQueuedBytes)
          await this.flushedWithin(last, this.limits.resendPageTimeoutMs);
        if (this.ws.readyState !== WebSocket.OPEN) return;
        if (event.position > subscribedAt) this.resentLate.add(event.id);
        last = this.sendFrame(this.frameOf(event));
      }
      await this.flushedWithin(last, this.limits.resendPageTimeoutMs);
      pageId = page.nextPageId ?? undefined;
    } while (pageId !== undefined);
  }

  goLive(): void {
    this.live = true;
    for (; this.unanswered > 0; this.unanswered -= 1) this.answerReadOnly();
    for (const event of this.waiting.splice(0)) if (!this.resentLate.has(event.id)) void this.sendFrame(this.frameOf(event));
    this.waitingBytes = 0;
  }

  answerInbound(frame: string): void {
    // A redundant auth frame (sent by clients that also pass the key otherwise) is ignored, as the reference ignores it.
    if (isAuthFrame(frame)) return;
    if (this.live) this.answerReadOnly();
    else this.unanswered += 1;
  }

  private answerReadOnly(): void {
    void this.sendFrame(
      JSON.stringify({
        id: randomUUID(),
        timestamp: localTimestamp(new Date()),
        source: 'environment',
        code: READ_ONLY.code,
        detail: READ_ONLY.detail,
        kind: 'ServerErrorEvent',
      }),
    );
  }

  /** Waits for `sent`; a consumer that has not taken a page within `timeoutMs` has stopped reading, and is cut off. */
  private async flushedWithin(sent: Promise<void>, timeoutMs: number): Promise<void> {
    if (!(await sentWithin(sent, timeoutMs))) this.cutOff();
  }

  private cutOff(): void {
    cutOffStalled(this.ws, this.logger, 'event socket', this.hex);
  }
}

export function isAuthFrame(frame: string): boolean {
  try {
    const message = JSON.parse(frame) as unknown;
    return (
      typeof message === 'object' &&
      message !== null &&
      (message as { type?: unknown }).type === 'auth' &&
      Object.keys(message).every((key) => key === 'type' || key === 'session_api_key')
    );
  } catch {
    return false;
  }
}

/**
 * The reference's first frame: an unpersisted state update holding the whole saved state
 * (secrets masked). Without a saved state the value is `{}`: the conversation has events
 * but nothing says what its agent was.
 */
export function fullStateFrame(state: Record<string, unknown> | undefined): string {
  return JSON.stringify({
    id: randomUUID(),
    timestamp: localTimestamp(new Date()),
    source: 'environment',
    key: 'full_state',
    value: state ?? {},
    kind: 'ConversationStateUpdateEvent',
  });
}

/** The reference's event timestamps: local time without a zone, to the microsecond. */
export function localTimestamp(at: Date): string {
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}000`;
}

const socketsOfApps = new WeakMap<object, EventSockets>();

/** Ties the sockets to the application that serves the same store, for `listen` to route upgrades to. */
export function attachEventSockets(app: object, sockets: EventSockets): void {
  socketsOfApps.set(app, sockets);
}

export function eventSocketsOf(app: object): EventSockets | undefined {
  return socketsOfApps.get(app);
}
