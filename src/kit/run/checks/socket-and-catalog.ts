/**
 * The reference's read surface beyond events, judged against the search itself
 * (docs/reference-behaviour.md, "The events socket" and "The conversations catalog"): the
 * socket's `resend_mode=all` sends what a search walk returns, in the walk's order; `since`
 * what the walk from that time returns; an unknown conversation is closed 4004, a wrong key
 * 4001. The catalog's search walk lists each conversation once at every page size, its
 * count agrees with the walk, and get answers each conversation as its search item. A server
 * without the socket or the catalog gets "not implemented" for these checks.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import WebSocket from 'ws';
import { integerBounds } from '../../search-contract';
import type { CheckContext } from '../context';
import { type Exchange, KIT_READ_LIMITS, parseJson } from '../../http';
import { count as plural, failed, notImplemented, skipped, verdict, type Check, type CheckOutcome, type Finding } from '../types';
import { exchangeOrOutcome, statusAndBody, unfinishedWalk } from './support';

/** Longest wait for a socket's frames: the resend of a few thousand events takes well under it. */
const SOCKET_WAIT_MS = 15_000;
/** The socket has no end-of-resend marker: once frames have begun, this long without one ends the wait. */
const QUIET_MS = 2_000;
/** Catalog pages walked at most per walk: a bound on traffic. */
const MAX_CATALOG_PAGES = 200;
const SESSION_KEY_HEADER = 'X-Session-API-Key';

interface SocketAnswer {
  /** The frames' JSON, parsed; unparseable frames as `undefined`. */
  frames: unknown[];
  /** How the socket closed; undefined when it was still open after the wait. */
  close?: { code: number; reason: string };
  /** The handshake was refused with this HTTP status. */
  refused?: number;
  /** A frame was larger than the kit reads: the socket was closed there. */
  frameTooLarge?: boolean;
}

/**
 * Opens the socket, waits until `enough` frames arrived, it closed, or the wait is over,
 * then closes it. `key` is sent by header: `undefined` sends the run's own key.
 */
export function socketAnswer(
  context: CheckContext,
  url: string,
  enough: number,
  key: string | undefined = context.sessionApiKey,
): Promise<SocketAnswer> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, {
      headers: key === undefined ? {} : { [SESSION_KEY_HEADER]: key },
      maxPayload: KIT_READ_LIMITS.socketFrameBytes,
    });
    const answer: SocketAnswer = { frames: [] };
    const finish = () => {
      clearTimeout(timer);
      clearTimeout(quiet);
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      resolve(answer);
    };
    const timer = setTimeout(finish, SOCKET_WAIT_MS);
    let quiet: NodeJS.Timeout | undefined;
    ws.on('message', (data) => {
      clearTimeout(quiet);
      quiet = setTimeout(finish, QUIET_MS);
      const parsed = parseJson(String(data));
      answer.frames.push(parsed.ok ? parsed.value : undefined);
      if (answer.frames.length >= enough) finish();
    });
    ws.on('close', (code, reason) => {
      answer.close = { code, reason: String(reason) };
      finish();
    });
    ws.on('unexpected-response', (_request, response) => {
      answer.refused = response.statusCode;
      finish();
    });
    ws.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') answer.frameTooLarge = true;
      finish();
    });
  });
}

function idOf(frame: unknown): string | undefined {
  const id = (frame as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

/** The frames after the first (the unpersisted state update), as ids. */
function resentIds(answer: SocketAnswer): (string | undefined)[] {
  return answer.frames.slice(1).map(idOf);
}

/** An answer no socket check can judge: no socket at all, or a frame past what the kit reads (a finding). */
function socketMissing(answer: SocketAnswer): CheckOutcome | undefined {
  if (answer.frameTooLarge)
    return failed([
      {
        message: `WS /sockets/events/{conversation_id}: a frame is larger than the kit reads (${KIT_READ_LIMITS.socketFrameBytes} bytes); it closed the socket there`,
      },
    ]);
  if (answer.refused === 404) return notImplemented('WS /sockets/events/{conversation_id}: the handshake was answered 404');
  // Our server on a store without live events closes 1011 before any frame.
  if (answer.frames.length === 0 && answer.close?.code === 1011)
    return notImplemented(`WS /sockets/events/{conversation_id}: closed 1011 "${answer.close.reason}"`);
  return undefined;
}

function orderFinding(what: string, expected: readonly (string | undefined)[], got: readonly (string | undefined)[]): Finding[] {
  if (isDeepStrictEqual(expected, got)) return [];
  const at = expected.findIndex((id, index) => got[index] !== id);
  return [
    {
      message: `${what}: ${plural(got.length, 'event')} resent where the search walk has ${expected.length}; first difference at position ${at === -1 ? got.length : at} (${JSON.stringify(got[at])} where the walk has ${JSON.stringify(expected[at])})`,
      expected: 'the events of the search walk, each once, in the walk order',
    },
  ];
}

const resendAll: Check = {
  id: 'ref.socket.resend-all',
  level: 'reference',
  title: 'the events socket with resend_mode=all sends a full_state state update, then every event of the search walk once, in the walk order',
  async run(context) {
    const walked = context.data.events.map((event) => event.id);
    const answer = await socketAnswer(context, context.socketUrl(undefined, 'resend_mode=all'), 1 + walked.length);
    const missing = socketMissing(answer);
    if (missing) return missing;
    const first = answer.frames[0] as { kind?: unknown; key?: unknown } | undefined;
    const findings: Finding[] = [];
    if (first?.kind !== 'ConversationStateUpdateEvent' || first.key !== 'full_state') {
      findings.push({
        message: `the first frame is ${JSON.stringify(first)?.slice(0, 200)}`,
        expected: 'a ConversationStateUpdateEvent with key "full_state"',
      });
    }
    findings.push(...orderFinding('resend_mode=all', walked, resentIds(answer)));
    return verdict(findings, `${plural(walked.length, 'event')} walked`);
  },
};

const resendSince: Check = {
  id: 'ref.socket.resend-since',
  level: 'reference',
  title: 'resend_mode=since with after_timestamp sends the events of the search walk with timestamp__gte at that time (inclusive), in its order',
  async run(context) {
    const middle = context.data.events[Math.floor(context.data.events.length / 2)];
    if (!middle?.timestamp) return skipped('the conversation has no event with a timestamp');
    const walk = await context.walk({ timestamp__gte: middle.timestamp, limit: context.contract.pageSize.maximum });
    const unfinished = unfinishedWalk(walk, `the walk from ${middle.timestamp}`);
    if (unfinished) return unfinished;
    const walked = walk.events.map((event) => event.id);
    const answer = await socketAnswer(
      context,
      context.socketUrl(undefined, `resend_mode=since&after_timestamp=${encodeURIComponent(middle.timestamp)}`),
      1 + walked.length,
    );
    return socketMissing(answer) ?? verdict(orderFinding(`resend_mode=since&after_timestamp=${middle.timestamp}`, walked, resentIds(answer)));
  },
};

const unknownConversation: Check = {
  id: 'ref.socket.unknown-4004',
  level: 'reference',
  title: 'the events socket of a conversation that does not exist is closed with 4004',
  async run(context) {
    const answer = await socketAnswer(context, context.socketUrl(randomUUID()), 1);
    const missing = socketMissing(answer);
    if (missing) return missing;
    return verdict(
      answer.close?.code === 4004 ? [] : [{ message: `the socket ${describeEnd(answer)}`, expected: 'close code 4004 ("Conversation not found")' }],
    );
  },
};

const wrongKey: Check = {
  id: 'ref.socket.wrong-key-4001',
  level: 'reference',
  title:
    'an events socket offering a wrong key is closed with 4001 and sent no event when the server requires keys (the run was given one); accepted when it requires none, as the reference accepts any',
  async run(context) {
    const wrong = `${context.sessionApiKey ?? 'no-key-is-required'}-wrong`;
    const answer = await socketAnswer(context, context.socketUrl(undefined, 'resend_mode=all'), 1, wrong);
    const missing = socketMissing(answer);
    if (missing) return missing;
    if (context.sessionApiKey === undefined) {
      const accepted = answer.frames.length > 0;
      return verdict(
        accepted
          ? []
          : [
              {
                message: `the socket ${describeEnd(answer)}`,
                expected: 'a server that requires no key (the run was given none) accepts the socket whatever key it offers',
              },
            ],
        'the run has no --session-api-key: judged as a server that requires none',
      );
    }
    // The reference refuses the handshake (403) for a wrong header key; both keep the events from the client.
    const refusedOrClosed = answer.close?.code === 4001 || answer.refused === 403;
    return verdict(
      refusedOrClosed && answer.frames.length === 0
        ? []
        : [{ message: `the socket ${describeEnd(answer)}`, expected: 'close code 4001 (or a refused handshake) and no frame' }],
    );
  },
};

function describeEnd(answer: SocketAnswer): string {
  if (answer.refused !== undefined) return `handshake was answered ${answer.refused}`;
  const received = `after ${plural(answer.frames.length, 'frame')}`;
  return answer.close ? `closed with ${answer.close.code} "${answer.close.reason}" ${received}` : `stayed open ${received}`;
}

interface CatalogItem {
  id?: unknown;
  execution_status?: unknown;
}

type CatalogWalk = { ok: true; items: CatalogItem[]; pages: number } | { ok: false; outcome: CheckOutcome };

async function walkCatalog(context: CheckContext, query: string): Promise<CatalogWalk> {
  const items: CatalogItem[] = [];
  let pageId: string | undefined;
  for (let pages = 1; pages <= MAX_CATALOG_PAGES; pages++) {
    const what = `the catalog search ${query}${pageId ? `&page_id=${pageId}` : ''}`;
    const sent = exchangeOrOutcome(
      await context.get(`/api/conversations/search?${query}${pageId ? `&page_id=${encodeURIComponent(pageId)}` : ''}`),
      what,
    );
    if ('outcome' in sent) return { ok: false, outcome: sent.outcome };
    const missing = catalogMissing(sent.exchange);
    if (missing) return { ok: false, outcome: missing };
    const page = sent.exchange.json.ok ? (sent.exchange.json.value as { items?: unknown; next_page_id?: unknown }) : undefined;
    if (sent.exchange.status !== 200 || !Array.isArray(page?.items)) {
      return {
        ok: false,
        outcome: verdict([
          { message: `${what} answered ${statusAndBody(sent.exchange)}`, expected: '200 with a ConversationPage', exchange: sent.exchange },
        ]),
      };
    }
    items.push(...(page.items as CatalogItem[]));
    if (typeof page.next_page_id !== 'string') return { ok: true, items, pages };
    pageId = page.next_page_id;
  }
  return { ok: false, outcome: skipped(`the catalog walk ${query} did not end within ${MAX_CATALOG_PAGES} pages`) };
}

function catalogMissing(exchange: Exchange): CheckOutcome | undefined {
  if (exchange.status === 404) return notImplemented('GET /api/conversations/search (searchConversations) answered 404');
  return undefined;
}

async function countOfCatalog(context: CheckContext, query: string): Promise<{ ok: true; count: number } | { ok: false; outcome: CheckOutcome }> {
  const sent = exchangeOrOutcome(await context.get(`/api/conversations/count${query ? `?${query}` : ''}`), `the catalog count ${query}`);
  if ('outcome' in sent) return { ok: false, outcome: sent.outcome };
  const value = sent.exchange.json.ok ? sent.exchange.json.value : undefined;
  if (sent.exchange.status !== 200 || typeof value !== 'number') {
    return {
      ok: false,
      outcome: verdict([
        {
          message: `the catalog count ${query} answered ${statusAndBody(sent.exchange)}`,
          expected: '200 with a bare integer',
          exchange: sent.exchange,
        },
      ]),
    };
  }
  return { ok: true, count: value };
}

const catalogPaging: Check = {
  id: 'ref.catalog.paging-exactly-once',
  level: 'reference',
  title: 'the conversations catalog walked with limit 1, 7 and its largest page lists the same conversations, each once',
  async run(context) {
    const findings: Finding[] = [];
    let reference: unknown[] | undefined;
    for (const limit of [catalogPageSize(context), 7, 1]) {
      const walk = await walkCatalog(context, `limit=${limit}`);
      if (!walk.ok) return walk.outcome;
      const ids = walk.items.map((item) => item.id);
      const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
      if (repeated.length > 0) findings.push({ message: `limit=${limit}: ${JSON.stringify(repeated.slice(0, 5))} listed more than once` });
      if (reference && !isDeepStrictEqual(ids, reference))
        findings.push({
          message: `limit=${limit} lists ${ids.length} conversations, limit=${catalogPageSize(context)} ${reference.length}, or in another order`,
        });
      reference ??= ids;
    }
    return verdict(findings, `${plural(reference?.length ?? 0, 'conversation')}`);
  },
};

const catalogCount: Check = {
  id: 'ref.catalog.count-matches-walk',
  level: 'reference',
  title:
    'the catalog count with a status equals the walk with that status; without one it is at least the walk (entries without a saved state are counted, not listed)',
  async run(context) {
    const findings: Finding[] = [];
    const all = await walkCatalog(context, `limit=${catalogPageSize(context)}`);
    if (!all.ok) return all.outcome;
    const total = await countOfCatalog(context, '');
    if (!total.ok) return total.outcome;
    if (total.count < all.items.length)
      findings.push({ message: `count ${total.count} is below the ${all.items.length} conversations the walk lists` });
    const statuses = [
      ...new Set(
        all.items.map((item) => item.execution_status).filter((status): status is string => typeof status === 'string' && status !== 'idle'),
      ),
    ];
    for (const status of statuses) {
      const walk = await walkCatalog(context, `limit=${catalogPageSize(context)}&status=${status}`);
      if (!walk.ok) return walk.outcome;
      const counted = await countOfCatalog(context, `status=${status}`);
      if (!counted.ok) return counted.outcome;
      if (counted.count !== walk.items.length) findings.push({ message: `status=${status}: count ${counted.count}, walk ${walk.items.length}` });
      const strays = walk.items.filter((item) => item.execution_status !== status);
      if (strays.length > 0)
        findings.push({ message: `status=${status}: the walk lists ${plural(strays.length, 'conversation')} with another status` });
    }
    return verdict(findings);
  },
};

/** Get answers at most this many conversations, one request each. */
const GETS = 10;

const catalogGet: Check = {
  id: 'ref.catalog.get-equals-search-item',
  level: 'reference',
  title: 'get and get-by-ids answer each conversation as its catalog search item; an unknown id is 404 and null',
  async run(context) {
    const walk = await walkCatalog(context, `limit=${catalogPageSize(context)}`);
    if (!walk.ok) return walk.outcome;
    const findings: Finding[] = [];
    for (const item of walk.items.slice(0, GETS)) {
      const sent = exchangeOrOutcome(await context.get(`/api/conversations/${String(item.id)}`), `get ${String(item.id)}`);
      if ('outcome' in sent) return sent.outcome;
      const body = sent.exchange.json.ok ? sent.exchange.json.value : undefined;
      if (sent.exchange.status !== 200 || !isDeepStrictEqual(body, item)) {
        findings.push({
          message: `get ${String(item.id)} answered ${statusAndBody(sent.exchange)}`,
          expected: 'the search item',
          exchange: sent.exchange,
        });
      }
    }
    const unknown = randomUUID();
    const missing = exchangeOrOutcome(await context.get(`/api/conversations/${unknown}`), 'get of an unknown conversation');
    if ('outcome' in missing) return missing.outcome;
    if (missing.exchange.status !== 404)
      findings.push({ message: `get of an unknown conversation answered ${statusAndBody(missing.exchange)}`, expected: '404' });
    const first = walk.items[0];
    if (first) {
      const batch = exchangeOrOutcome(await context.get(`/api/conversations?ids=${String(first.id)}&ids=${unknown}`), 'get by ids');
      if ('outcome' in batch) return batch.outcome;
      const body = batch.exchange.json.ok ? batch.exchange.json.value : undefined;
      if (!isDeepStrictEqual(body, [first, null]))
        findings.push({
          message: `get by ids answered ${statusAndBody(batch.exchange)}`,
          expected: '[the search item, null]',
          exchange: batch.exchange,
        });
    }
    return verdict(findings, `${plural(Math.min(GETS, walk.items.length), 'conversation')} got`);
  },
};

export function socketAndCatalogChecks(): Check[] {
  return [resendAll, resendSince, unknownConversation, wrongKey, catalogPaging, catalogCount, catalogGet];
}

/** The catalog search's largest page, as the contract bounds its `limit`. */
function catalogPageSize(context: CheckContext): number {
  const limit = context.contract.table.byId('searchConversations')?.parameters.find((parameter) => parameter.name === 'limit');
  return integerBounds(limit?.schema ?? {}).maximum;
}
