/**
 * What the events socket and the session socket share: their limits and close codes, the
 * refusal of a handshake whose path or query does not validate, authentication (query,
 * header, or a first `auth` frame), and opening a subscriber's place on a conversation's
 * feed with every check before it. Each socket's own file says what it sends.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, WebSocket } from 'ws';
import type { ConversationCatalog } from '../catalog/conversation-catalog';
import type { Logger } from '../log';
import type { KnownSecrets } from '../secrets';
import type { EventFeed } from '../store/event-store';
import { SESSION_KEY_HEADER, sessionKeyMatches } from '../server/session-keys';
import type { ConversationFeeds, FeedSubscriber } from './conversation-feeds';

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

/**
 * Refuses a handshake whose path or query value does not validate with HTTP 403, as uvicorn
 * answers a socket FastAPI closes before accepting it; the body names the parameter, which
 * the reference's empty answer does not.
 */
export function refuseHandshake(socket: Duplex, reason: string): void {
  const body = JSON.stringify({ detail: reason });
  socket.end(
    `HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** The path segment decoded; as sent when its escapes do not decode (the id check then names it). */
export function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A subscriber that also answers the frames its client sends once the socket is open. */
export interface SocketSubscriber extends FeedSubscriber {
  answerInbound(frame: string): void;
}

/**
 * Authenticates the socket and subscribes a new `Subscriber` to the conversation's feed, closing the socket with the reference's code when a step fails (4001, 4004, 1013).
 * The conversation's known secrets are looked up before the feed, so that nothing waits
 * between finding the feed and subscribing to it. Resolves with the subscriber and the
 * position up to which events were stored when it joined, or undefined when the socket is closed.
 */
export async function openSubscription<S extends SocketSubscriber>(
  ws: WebSocket,
  request: IncomingMessage,
  hex: string,
  query: URLSearchParams,
  options: EventSocketsOptions,
  feeds: ConversationFeeds | undefined,
  Subscriber: new (ws: WebSocket, logger: Logger, hex: string, limits: SocketLimits, known: KnownSecrets) => S,
): Promise<{ subscriber: S; subscribedAt: number } | undefined> {
  const inbound = new InboundFrames(ws);
  const limits = options.limits ?? SOCKET_LIMITS;
  if (!(await authenticate(ws, request, query, options.sessionApiKeys, inbound, limits.authFrameTimeoutMs))) {
    closeSocket(ws, CLOSE.authenticationFailed, 'Authentication failed');
    return undefined;
  }
  if (!feeds) {
    // A store that hands out no events one by one serves no socket.
    closeSocket(ws, CLOSE.internalError, "Live events are not available from this server's store");
    return undefined;
  }
  const known = await options.catalog.knownSecrets(hex);
  const feed = await feeds.feedFor(hex);
  if (!feed) {
    closeSocket(ws, CLOSE.conversationNotFound, 'Conversation not found');
    return undefined;
  }
  if (feed.subscribers.size >= limits.maxSocketsPerConversation) {
    closeSocket(ws, CLOSE.tryAgainLater, 'Too many connections for this conversation');
    return undefined;
  }
  const subscriber = new Subscriber(ws, options.logger, hex, limits, known);
  const subscribedAt = feed.subscribe(subscriber);
  // The client may have gone while the conversation was looked up: then no close event is to come.
  if (ws.readyState !== WebSocket.OPEN) {
    feed.unsubscribe(subscriber);
    return undefined;
  }
  ws.once('close', () => feed.unsubscribe(subscriber));
  inbound.answerWith((frame) => subscriber.answerInbound(frame));
  return { subscriber, subscribedAt };
}

/** Inbound frames: held for the authentication, then answered one by one. */
class InboundFrames {
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

async function authenticate(
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

/** A redundant auth frame (sent by clients that also pass the key otherwise), which the reference ignores. */
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
