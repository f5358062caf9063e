/**
 * Oversized and slow clients: what each limit of SERVER_LIMITS (src/server/listen.ts)
 * answers, byte for byte, and that a client stalling mid-request is cut off on time while
 * everyone else is served. The timeouts are shortened through `listen`'s `limits`
 * argument so the test takes a second, not a minute; the sizes are the production ones.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generateConversation, writeConversation } from '../../src/fixture';
import { createMemoryLogger } from '../../src/log';
import { createApp } from '../../src/server/app';
import { type RunningServer, SERVER_LIMITS, type ServerLimits, listen } from '../../src/server/listen';
import { openDirectoryStore } from '../../src/store/sqlite/indexed-directory';
import type { EventStore } from '../../src/store/event-store';
import { conversationId } from '../support/events';
import { exchange, rawGet } from './support/raw-http';

const FAST: ServerLimits = {
  ...SERVER_LIMITS,
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  connectionsCheckingIntervalMs: 50,
  keepAliveTimeoutMs: 200,
};
/** Node closes an idle keep-alive connection this much after keepAliveTimeout, so clients never reuse one being closed. */
const NODE_KEEP_ALIVE_BUFFER_MS = 1000;
/** Room for a loaded CI machine on top of each deadline: the bound says the limit acted, not how promptly. */
const SLACK_MS = 2000;
const CONVERSATION = conversationId(60);
const SEARCH = `/api/conversations/${CONVERSATION}/events/search`;
const TOO_LARGE = 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n';
const TIMED_OUT = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

let root: string;
let store: EventStore;
let running: RunningServer;
beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'hardening-limits-'));
  writeConversation(root, CONVERSATION, generateConversation({ events: 12, seed: 'limits' }));
  const logger = createMemoryLogger();
  store = openDirectoryStore(root, { logger });
  running = await listen(createApp({ store, logger }), '127.0.0.1', 0, FAST);
});
afterAll(async () => {
  await running.stop();
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

const request = (head: string) => exchange(running.url, Buffer.from(head, 'latin1')).then((bytes) => bytes.toString('latin1'));

describe(`request line plus headers over ${SERVER_LIMITS.maxHeaderSize} bytes: 431 and the connection closed`, () => {
  it.each([
    [
      'a 20 KB URL (Node answers 431 for a long request line too; it never sends 414)',
      `GET ${SEARCH}?kind=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ],
    [
      '100 headers of 1 KB',
      `GET ${SEARCH} HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 100 }, (_, i) => `X-Filler-${i}: ${'y'.repeat(1024)}\r\n`).join('')}\r\n`,
    ],
    ['one 17 KB cookie', `GET ${SEARCH} HTTP/1.1\r\nHost: x\r\nCookie: a=${'z'.repeat(17 * 1024)}\r\n\r\n`],
  ])('%s', async (_name, head) => {
    expect(await request(head)).toBe(TOO_LARGE);
  });

  it('a 15 KB URL, under the limit, is answered normally', async () => {
    const response = await rawGet(running.url, `${SEARCH}?kind=${'x'.repeat(15_000)}`);
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: '{"items":[],"next_page_id":null}' });
  });
});

/** Opens a connection, writes `partial`, and resolves with what came back and when the server closed it. */
function stall(partial: string): Promise<{ answer: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(running.url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, closedAfterMs: performance.now() - started }));
    socket.write(partial);
  });
}

describe(`a client that stalls mid-request is answered 408 and closed within headersTimeout (${FAST.headersTimeoutMs} ms here)`, () => {
  it.each([
    ['part of the request line', 'GET /api/conversations/'],
    ['a request line and part of a header', `GET ${SEARCH} HTTP/1.1\r\nHost: x\r\nX-Slow: `],
    ['headers without the blank line that ends them', `GET ${SEARCH} HTTP/1.1\r\nHost: x\r\n`],
  ])('%s', async (_name, partial) => {
    const { answer, closedAfterMs } = await stall(partial);
    expect(answer).toBe(TIMED_OUT);
    expect(closedAfterMs).toBeGreaterThanOrEqual(FAST.headersTimeoutMs - 10);
    expect(closedAfterMs).toBeLessThan(FAST.headersTimeoutMs + FAST.connectionsCheckingIntervalMs + SLACK_MS);
  });

  it(`a body that never completes is cut at requestTimeout (${FAST.requestTimeoutMs} ms here), after the answer`, async () => {
    const { answer, closedAfterMs } = await stall(`GET /alive HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"status":"ok"\}HTTP\/1\.1 408 Request Timeout\r\nConnection: close\r\n\r\n$/);
    expect(closedAfterMs).toBeLessThan(FAST.requestTimeoutMs + FAST.connectionsCheckingIntervalMs + SLACK_MS);
  });

  it('fifty stalled clients do not keep a normal one waiting, and all of them are closed', async () => {
    const order: string[] = [];
    const stalled = Array.from({ length: 50 }, () => stall('GET /api/conversations/').finally(() => order.push('stalled')));
    const served = await rawGet(running.url, SEARCH).finally(() => order.push('served'));
    expect(served.status).toBe(200);
    const closed = await Promise.all(stalled);
    expect(closed.map(({ answer }) => answer)).toEqual(Array(50).fill(TIMED_OUT));
    // Answered before any stalled client's headersTimeout closed it, however busy the machine.
    expect(order[0]).toBe('served');
  });
});

it(`an idle keep-alive connection is closed after keepAliveTimeout (${FAST.keepAliveTimeoutMs} ms here, plus Node's 1 s)`, async () => {
  const { answer, closedAfterMs } = await stall('GET /alive HTTP/1.1\r\nHost: x\r\n\r\n');
  expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Keep-Alive: timeout=0\r\n[\s\S]*\{"status":"ok"\}$/);
  expect(closedAfterMs).toBeGreaterThanOrEqual(FAST.keepAliveTimeoutMs);
  expect(closedAfterMs).toBeLessThan(FAST.keepAliveTimeoutMs + NODE_KEEP_ALIVE_BUFFER_MS + SLACK_MS);
});

it('the production limits are the documented ones', () => {
  expect(SERVER_LIMITS).toEqual({
    requestTimeoutMs: 30_000,
    headersTimeoutMs: 10_000,
    connectionsCheckingIntervalMs: 1_000,
    keepAliveTimeoutMs: 5_000,
    maxHeaderSize: 16 * 1024,
    shutdownGraceMs: 8_000,
  });
});
