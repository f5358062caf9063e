/**
 * `WS /sockets/events/{conversation_id}`, as the reference serves it (docs/reference-behaviour.md,
 * "The events socket"): authentication by header, query or a first `auth` frame; a first
 * `full_state` state update built from the saved state; the stored events resent on request
 * (`resend_mode=all`, or `since` with `after_timestamp`); then every appended event, one
 * JSON text frame each, the bytes a search item has. An archive runs no agent, so a frame
 * sent to it is answered with an error frame and nothing else happens. A path or query value
 * that does not validate refuses the handshake (403), as FastAPI does. This module also
 * routes the upgrades of both sockets.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../log';
import { parseBoolean, parseEnum, parseFilterTimestamp, parseUuid } from '../request-value';
import type { SearchCriteria } from '../search';
import { type KnownSecrets, maskedJson } from '../secrets';
import type { EventFeed, FeedEvent } from '../store/event-store';
import { ConversationFeeds } from './conversation-feeds';
import { serveSessionSocket, sessionSocketRequest } from './session-socket';
import {
  CLOSE,
  type EventSocketsOptions,
  READ_ONLY,
  SOCKET_LIMITS,
  type SocketLimits,
  type SocketSubscriber,
  decodedSegment,
  fullStateFrame,
  isAuthFrame,
  localTimestamp,
  openSubscription,
  refuseHandshake,
} from './socket-subscription';
import { cutOffStalled, sentWithin } from './stalled-consumer';

const SOCKET_PATH = /^\/sockets\/events\/([^/]+)\/?$/;
/** An inbound frame larger than this closes the socket (1009): nothing this server takes is that large. */
export const MAX_INBOUND_FRAME_BYTES = 64 * 1024;
/** Resend pages, as the reference resends. */
const RESEND_PAGE = 100;
/** How many looks' worth of appended events a socket's queue bound holds. */
const LOOKS_PER_QUEUE = 4;

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
  const accept = (request: IncomingMessage, socket: Duplex, head: Buffer, name: string, serve: (ws: WebSocket) => Promise<void>) =>
    server.handleUpgrade(request, socket, head, (ws) => {
      ws.on('error', (error) => options.logger.info(`${name} error`, { error: error.message }));
      serve(ws).catch((error: unknown) => {
        options.logger.error(`${name} failed`, { error: (error as Error).message });
        ws.terminate();
      });
    });
  return {
    handles(request) {
      try {
        const url = new URL(request.url ?? '/', 'http://socket');
        return eventSocketRequest(url) !== undefined || sessionSocketRequest(url) !== undefined;
      } catch {
        return false;
      }
    },
    handleUpgrade(request, socket, head) {
      const url = new URL(request.url ?? '/', 'http://socket');
      const asked = eventSocketRequest(url);
      const session = asked ? undefined : sessionSocketRequest(url);
      const refused = asked?.refused ?? session?.refused;
      if (refused !== undefined) refuseHandshake(socket, refused);
      else if (asked?.request)
        accept(request, socket, head, 'event socket', (ws) => serveSocket(ws, request, asked.request!, url.searchParams, options, feeds));
      else if (session?.request)
        accept(request, socket, head, 'session socket', (ws) => serveSessionSocket(ws, request, session.request!, url.searchParams, options, feeds));
      else socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
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

/**
 * The events socket a request asks for, its path and query read as the reference validates
 * them: undefined when the path is not the events socket's, `refused` with a message naming
 * the parameter when a value does not validate.
 */
function eventSocketRequest(url: URL): { request?: SocketRequest; refused?: string } | undefined {
  const match = SOCKET_PATH.exec(url.pathname);
  if (!match) return undefined;
  const query = url.searchParams;
  const id = parseUuid(decodedSegment(match[1]!));
  if (!id.ok) return { refused: `conversation_id: Input should be a valid UUID, ${id.message}` };
  const modeText = query.get('resend_mode');
  const mode = modeText === null ? null : parseEnum(['all', 'since'] as const, modeText);
  if (mode !== null && !mode.ok) return { refused: `resend_mode: ${mode.message}` };
  const after = query.get('after_timestamp');
  let gte: number | undefined;
  if (after !== null) {
    const parsed = parseFilterTimestamp(after);
    if (!parsed.ok) return { refused: `after_timestamp: Input should be a valid datetime or date, ${parsed.message}` };
    gte = parsed.micros;
  }
  const resendAllText = query.get('resend_all');
  const resendAll = resendAllText === null ? null : parseBoolean(resendAllText);
  if (resendAll !== null && !resendAll.ok) return { refused: `resend_all: ${resendAll.message}` };
  const effective = mode?.value ?? (resendAll?.value ? 'all' : null);
  if (effective === 'all') return { request: { hex: id.hex, resend: { mode: 'all' } } };
  if (effective === 'since') return { request: { hex: id.hex, resend: { mode: 'since', gte } } };
  return { request: { hex: id.hex, resend: { mode: 'none' } } };
}

async function serveSocket(
  ws: WebSocket,
  request: IncomingMessage,
  asked: SocketRequest,
  query: URLSearchParams,
  options: EventSocketsOptions,
  feeds: ConversationFeeds | undefined,
): Promise<void> {
  const opened = await openSubscription(ws, request, asked.hex, query, options, feeds, EventsSubscriber);
  if (!opened) return;
  const { subscriber, subscribedAt } = opened;
  void subscriber.sendFrame(fullStateFrame(await options.catalog.state(asked.hex)));
  if (asked.resend.mode === 'all' || (asked.resend.mode === 'since' && asked.resend.gte !== undefined)) {
    const criteria: SearchCriteria = { sortOrder: 'TIMESTAMP', limit: RESEND_PAGE };
    if (asked.resend.mode === 'since') criteria.gte = asked.resend.gte;
    await subscriber.resend(options.feed!, asked.hex, criteria, subscribedAt);
  }
  subscriber.goLive();
}

/**
 * One socket's side of a feed. Until its resend is over, appended events wait in its
 * queue; events the resend already sent are not sent again. Whatever is queued for it,
 * in the socket's buffer or here, is bounded: past the bound the consumer is cut off.
 */
class EventsSubscriber implements SocketSubscriber {
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

const socketsOfApps = new WeakMap<object, EventSockets>();

/** Ties the sockets to the application that serves the same store, for `listen` to route upgrades to. */
export function attachEventSockets(app: object, sockets: EventSockets): void {
  socketsOfApps.set(app, sockets);
}

export function eventSocketsOf(app: object): EventSockets | undefined {
  return socketsOfApps.get(app);
}
