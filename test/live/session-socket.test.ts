/**
 * The session socket, the batch get of events and the agent's final response over a real
 * server and real files, on whichever store the suite runs with (test/postgres runs it again
 * on PostgreSQL): replay after a position, the state update, appended events, a reconnect
 * that misses nothing, session keys as on the events socket, and the refusals.
 * test/reference/read-calls-against-reference.test.ts compares the same against the reference.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Event } from '../../src/contract';
import { eventFileName, serializeEvent } from '../../src/fixture/layout';
import { writeConversationState } from '../support/conversation-state';
import { action, conversationId, eventId, message } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { openTestSocket } from '../support/socket-client';

const ID = conversationId(1);
const HEX = ID.replaceAll('-', '');
const KEY = 'session-socket-key';
const stamp = (second: number) => `2026-11-25T10:00:${String(second).padStart(2, '0')}.000001`;
const EVENTS: Event[] = [
  message({ id: eventId(1), timestamp: stamp(1), source: 'user' }, { text: ['Say hello.'] }),
  action({ id: eventId(2), timestamp: stamp(2) }),
  message({ id: eventId(3), timestamp: stamp(3), source: 'agent' }, { text: ['Hello', ', world.'] }),
  message({ id: eventId(4), timestamp: stamp(4), source: 'user' }, { text: ['Thanks.'] }),
];

let server: LiveServer;
let keyed: LiveServer;
let appended = EVENTS.length;

beforeAll(async () => {
  [server, keyed] = await Promise.all([
    startLiveServer([{ id: ID, events: EVENTS }]),
    startLiveServer([{ id: ID, events: EVENTS }], { sessionApiKeys: [KEY] }),
  ]);
  for (const running of [server, keyed]) writeConversationState(running.root, ID, { createdAt: stamp(0), updatedAt: stamp(59) });
});

afterAll(() => Promise.all([server.stop(), keyed.stop()]));

function append(event: Event): void {
  writeFileSync(path.join(server.root, HEX, 'events', eventFileName(appended++, event.id as string)), serializeEvent(event));
}

function sessionUrl(base: string, query = '', id = ID): string {
  return `${base.replace(/^http/, 'ws')}/sockets/session/${id}${query ? `?${query}` : ''}`;
}

type Frame = { type: string; seq?: number; event?: { kind?: string; key?: string; id?: string } };
const parsed = (frames: string[]): Frame[] => frames.map((frame) => JSON.parse(frame) as Frame);
const stored = (event: Event): unknown => JSON.parse(serializeEvent(event));

test('after_seq=-1 replays every stored event by position, then the state update, then nothing until an append', async () => {
  const socket = openTestSocket(sessionUrl(server.url, 'after_seq=-1'));
  const frames = parsed(await socket.framesArrived(EVENTS.length + 2));
  expect(frames.slice(0, -1)).toEqual([
    { type: 'sync', from_seq: -1, through_seq: EVENTS.length - 1 },
    ...EVENTS.map((event, seq) => ({ type: 'durable', seq, event: stored(event) })),
  ]);
  expect(frames.at(-1)).toMatchObject({ type: 'transient', event: { kind: 'ConversationStateUpdateEvent', key: 'full_state' } });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(socket.frames).toHaveLength(EVENTS.length + 2);
  socket.ws.close();
});

test('live only: the append arrives with its position, and a reconnect with that position gets nothing twice', async () => {
  const socket = openTestSocket(sessionUrl(server.url));
  const first = parsed(await socket.framesArrived(2));
  expect(first[0]).toEqual({ type: 'sync', through_seq: appended - 1 });
  expect(first[1]).toMatchObject({ type: 'transient', event: { key: 'full_state' } });
  const next = message({ id: eventId(50), timestamp: stamp(50), source: 'agent' }, { text: ['Live.'] });
  const position = appended;
  append(next);
  const [, , live] = await socket.framesArrived(3);
  expect(JSON.parse(live!)).toEqual({ type: 'durable', seq: position, event: stored(next) });
  socket.ws.terminate();

  const again = openTestSocket(sessionUrl(server.url, `after_seq=${position}`));
  const frames = parsed(await again.framesArrived(2));
  expect(frames[0]).toEqual({ type: 'sync', from_seq: position, through_seq: position });
  expect(frames[1]!.type).toBe('transient');
  again.ws.close();
});

test('session keys as on the events socket: header, query, auth frame; a wrong one closes 4001', async () => {
  const byHeader = openTestSocket(sessionUrl(keyed.url), { 'X-Session-API-Key': KEY });
  expect(parsed(await byHeader.framesArrived(1))[0]!.type).toBe('sync');
  byHeader.ws.close();
  const byQuery = openTestSocket(sessionUrl(keyed.url, `session_api_key=${KEY}`));
  expect(parsed(await byQuery.framesArrived(1))[0]!.type).toBe('sync');
  byQuery.ws.close();
  const byFrame = openTestSocket(sessionUrl(keyed.url));
  await byFrame.opened;
  byFrame.ws.send(JSON.stringify({ type: 'auth', session_api_key: KEY }));
  expect(parsed(await byFrame.framesArrived(1))[0]!.type).toBe('sync');
  byFrame.ws.close();
  expect(await openTestSocket(sessionUrl(keyed.url, 'session_api_key=wrong')).closed).toEqual({ code: 4001, reason: 'Authentication failed' });
  // A path or query that does not validate is refused before any key is looked at, as FastAPI refuses it.
  await expect(openTestSocket(sessionUrl(keyed.url, 'after_seq=x')).opened).rejects.toThrow(/^handshake answered 403 \{"detail":"after_seq: /);
  await expect(openTestSocket(sessionUrl(keyed.url, '', 'not-a-uuid')).opened).rejects.toThrow(
    /^handshake answered 403 \{"detail":"conversation_id: /,
  );
  expect(await openTestSocket(sessionUrl(server.url, '', conversationId(9))).closed).toEqual({ code: 4004, reason: 'Conversation not found' });
  // Over HTTP, as in the reference: the readiness probe needs no key, the final response does.
  expect(await keyed.get('/ready')).toMatchObject({ status: 200, body: { status: 'ready' } });
  expect(await keyed.get(`/api/conversations/${ID}/agent_final_response`)).toMatchObject({ status: 401, body: { detail: 'Unauthorized' } });
});

test('the batch get answers stored events in the order asked, null for an unknown id', async () => {
  // fetch refuses a body on a GET, so the request is made with node:http, as the reference's Python clients (httpx) can.
  const answer = await getWithBody(`${server.url}/api/conversations/${ID}/events`, JSON.stringify([EVENTS[2]!.id, 'no-such-event', EVENTS[0]!.id]));
  expect(answer).toEqual({ status: 200, body: [stored(EVENTS[2]!), null, stored(EVENTS[0]!)] });
  expect(await getWithBody(`${server.url}/api/conversations/${ID}/events`, '[]')).toEqual({ status: 200, body: [] });
});

test("a body or a frame nested deeper than Python decodes gets the reference's answer, and the server goes on", async () => {
  // Each once crashed the server: the reader recursed once per level and overflowed the call stack.
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  expect(await getWithBody(`${server.url}/api/conversations/${ID}/events`, deep(200_000))).toEqual({
    status: 400,
    body: { detail: 'There was an error parsing the body' },
  });
  // As deep as Python decodes: a list, but not of strings.
  const asDeepAsPython = await getWithBody(`${server.url}/api/conversations/${ID}/events`, `[${deep(9_997)}]`);
  expect(asDeepAsPython.status).toBe(422);
  const socket = openTestSocket(sessionUrl(server.url));
  // The sync and the state update: the socket answers frames from then on.
  const before = (await socket.framesArrived(2)).length;
  // Within the largest frame the socket takes.
  socket.ws.send(deep(30_000));
  const answer = JSON.parse((await socket.framesArrived(before + 1))[before]!);
  socket.ws.close();
  expect(answer).toEqual({
    type: 'error',
    code: 'RecursionError',
    detail: 'maximum recursion depth exceeded while decoding a JSON array from a unicode string',
  });
  expect((await server.get('/alive')).status).toBe(200);
});

test("the agent's final response is its last message's text", async () => {
  const response = await server.get(`/api/conversations/${ID}/agent_final_response`);
  expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { response: expect.any(String) } });
  // The live test above appended an agent message after the first agent answer.
  expect(['Hello, world.', 'Live.']).toContain((response.body as { response: string }).response);
  expect((await server.get(`/api/conversations/${conversationId(9)}/agent_final_response`)).body).toEqual({ detail: 'Not Found' });
});

function getWithBody(url: string, body: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = require('node:http').request(
      url,
      { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res: import('node:http').IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
