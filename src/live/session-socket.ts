/**
 * `WS /sockets/session/{conversation_id}`, the reference 1.58.2's session socket
 * (`session_socket.py`; docs/reference-behaviour.md, "The session socket"). Query `after_seq`:
 * absent for live events only, `-1` for the whole history, N for the events stored after
 * position N. It sends one `sync` frame naming the range, a `durable` frame for each stored
 * event in that range (`seq`: its storage position, the number in its file name), one
 * `transient` frame with the `full_state` state update, then every appended event as a
 * `durable` frame, and never closes by itself. Authentication is the events socket's. An id
 * or `after_seq` that does not validate refuses the handshake (403), as FastAPI does; an
 * unknown conversation is accepted, then closed 4004. Read-only: a frame from the client is
 * answered with an error frame.
 */
import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import type { Logger } from '../log';
import { type IntegerParse, jsonDecodeErrorText, parseInteger, parseJsonText, parseUuid } from '../request-value';
import { type KnownSecrets, maskedJson } from '../secrets';
import type { EventFeed, FeedEvent } from '../store/event-store';
import { type SessionFrame, sessionFrame } from './session-frames';
import {
  type EventSocketsOptions,
  READ_ONLY,
  type SocketLimits,
  type SocketSubscriber,
  decodedSegment,
  fullStateFrame,
  isAuthFrame,
  openSubscription,
} from './socket-subscription';
import { cutOffStalled, sentWithin } from './stalled-consumer';
import type { ConversationFeeds } from './conversation-feeds';

const SESSION_PATH = /^\/sockets\/session\/([^/]+)\/?$/;
/** Events read from the store per step of the replay, as the reference reads them. */
const REPLAY_PAGE = 100;

export interface SessionSocketRequest {
  hex: string;
  /** `after_seq` as read; undefined for live events only. */
  afterSeq: Extract<IntegerParse, { ok: true }> | undefined;
}

/**
 * The session socket a request asks for: undefined when the path is not the session
 * socket's, `refused` with a message naming the parameter when its id or `after_seq` does
 * not validate.
 */
export function sessionSocketRequest(url: URL): { request?: SessionSocketRequest; refused?: string } | undefined {
  const match = SESSION_PATH.exec(url.pathname);
  if (!match) return undefined;
  const id = parseUuid(decodedSegment(match[1]!));
  if (!id.ok) return { refused: `conversation_id: Input should be a valid UUID, ${id.message}` };
  // Starlette reads the last of repeated values.
  const afterSeqText = url.searchParams.getAll('after_seq').at(-1);
  if (afterSeqText === undefined) return { request: { hex: id.hex, afterSeq: undefined } };
  const afterSeq = parseInteger(afterSeqText);
  return afterSeq.ok ? { request: { hex: id.hex, afterSeq } } : { refused: `after_seq: ${afterSeq.message}` };
}

export async function serveSessionSocket(
  ws: WebSocket,
  request: IncomingMessage,
  asked: SessionSocketRequest,
  query: URLSearchParams,
  options: EventSocketsOptions,
  feeds: ConversationFeeds | undefined,
): Promise<void> {
  const opened = await openSubscription(ws, request, asked.hex, query, options, feeds, SessionSubscriber);
  if (!opened) return;
  // Subscribed first, then the mark read, as the reference does: whatever is appended in between is in the buffer.
  const { subscriber } = opened;
  const fullState = fullStateFrame(await options.catalog.state(asked.hex));
  const stored = await options.feed!.storedAfter(asked.hex, Number.POSITIVE_INFINITY, 0);
  const throughSeq = stored && stored.lastStorageIndex >= 0 ? stored.lastStorageIndex : undefined;
  await subscriber.send({ type: 'sync', fromSeq: asked.afterSeq?.digits, throughSeq });
  const replayed = asked.afterSeq !== undefined && throughSeq !== undefined;
  if (replayed) await subscriber.replay(options.feed!, asked.hex, Math.max(asked.afterSeq!.value, -1), throughSeq!);
  subscriber.goLive(fullState, replayed ? throughSeq : undefined);
}

/**
 * One session socket's side of a feed. Until the replay is over, appended events wait in its
 * buffer; going live it sends the state update, then what waited (less what the replay sent),
 * then each appended event as it comes. What is queued for it is bounded: past the bound the
 * consumer is cut off, and reconnects with `after_seq` losing nothing.
 */
class SessionSubscriber implements SocketSubscriber {
  private buffer: FeedEvent[] | undefined = [];
  private bufferedBytes = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly logger: Logger,
    private readonly hex: string,
    private readonly limits: SocketLimits,
    /** The conversation's known secrets, masked in every stored event it sends with the rest of the secret policy (src/secrets). */
    private readonly known: KnownSecrets,
  ) {}

  deliver(event: FeedEvent): void {
    if (this.buffer) {
      this.buffer.push(event);
      this.bufferedBytes += event.json.length;
      if (this.bufferedBytes > this.limits.maxQueuedBytes) this.cutOff();
      return;
    }
    void this.send({ type: 'durable', seq: event.storageIndex, event: event.json });
  }

  /** Resolves once the frame has left for the network (or the socket closed). */
  send(frame: SessionFrame): Promise<void> {
    if (this.ws.readyState !== WebSocket.OPEN) return Promise.resolve();
    const masked = frame.type === 'durable' ? { ...frame, event: maskedJson(frame.event, this.known) } : frame;
    const sent = new Promise<void>((resolve) => this.ws.send(sessionFrame(masked), { binary: false }, () => resolve()));
    if (this.ws.bufferedAmount > this.limits.maxQueuedBytes) this.cutOff();
    return sent;
  }

  /** Sends the stored events at positions after `after` up to `through`, a page at a time, each page once the previous one is out. */
  async replay(feed: EventFeed, hex: string, after: number, through: number): Promise<void> {
    let position = after;
    while (position < through && this.ws.readyState === WebSocket.OPEN) {
      const page = await feed.storedAfter(hex, position, REPLAY_PAGE);
      const events = (page?.events ?? []).filter((event) => event.storageIndex <= through);
      if (events.length === 0) return;
      let last: Promise<void> = Promise.resolve();
      for (const event of events) last = this.send({ type: 'durable', seq: event.storageIndex, event: event.json });
      await this.flushedWithin(last, this.limits.resendPageTimeoutMs);
      position = events[events.length - 1]!.storageIndex;
    }
  }

  /** The state update, then what waited, then live; events the replay sent (at or below `replayedThrough`) are not sent again. */
  goLive(fullState: string, replayedThrough: number | undefined): void {
    const waiting = this.buffer ?? [];
    this.buffer = undefined;
    this.bufferedBytes = 0;
    void this.send({ type: 'transient', event: fullState });
    for (const event of waiting) {
      if (replayedThrough !== undefined && event.storageIndex <= replayedThrough) continue;
      void this.send({ type: 'durable', seq: event.storageIndex, event: event.json });
    }
  }

  answerInbound(frame: string): void {
    const parsed = parseJsonText(frame);
    // Not JSON: the reference's own answer, Python's decoder error; the socket stays open.
    if (!parsed.ok && 'tooDeep' in parsed) {
      void this.send({ type: 'error', code: 'RecursionError', detail: parsed.tooDeep });
      return;
    }
    if (!parsed.ok) {
      void this.send({ type: 'error', code: 'JSONDecodeError', detail: jsonDecodeErrorText(parsed) });
      return;
    }
    if (isAuthFrame(frame)) return;
    void this.send({ type: 'error', code: READ_ONLY.code, detail: READ_ONLY.detail });
  }

  private async flushedWithin(sent: Promise<void>, timeoutMs: number): Promise<void> {
    if (!(await sentWithin(sent, timeoutMs))) this.cutOff();
  }

  private cutOff(): void {
    cutOffStalled(this.ws, this.logger, 'session socket', this.hex);
  }
}
