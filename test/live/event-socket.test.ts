/**
 * The events socket over a real server and real files: resend modes against the search
 * walk, the first full_state frame, appended events, authentication, and the closes the
 * reference's clients act on.
 */
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Event } from '../../src/contract';
import { SOCKET_LIMITS } from '../../src/live/socket-subscription';
import { eventFileName, serializeEvent } from '../../src/fixture/layout';
import { conversationId, eventId, message } from '../support/events';
import { STORED_SECRETS, writeConversationState } from '../support/conversation-state';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { eventually } from '../support/eventually';
import { walkRaw } from '../support/search-requests';
import { openTestSocket, socketUrl } from '../support/socket-client';

const ID = conversationId(1);
const HEX = ID.replaceAll('-', '');
const stamp = (second: number) => `2026-11-25T10:00:${String(second).padStart(2, '0')}.000001`;
/** 30 events, appended out of timestamp order now and then, so that search order is not append order. */
const EVENTS: Event[] = Array.from({ length: 30 }, (_, n) =>
  message({ id: eventId(n + 1), timestamp: stamp(n % 7 === 3 ? n + 20 : n), source: n % 2 ? 'agent' : 'user' }, { text: [`event ${n + 1}`] }),
);

let server: LiveServer;
let appended = EVENTS.length;

beforeAll(async () => {
  server = await startLiveServer([{ id: ID, events: EVENTS }]);
  writeConversationState(server.root, ID, { createdAt: stamp(0), updatedAt: stamp(59) });
});

afterAll(() => server.stop());

function append(event: Event): void {
  writeFileSync(path.join(server.root, HEX, 'events', eventFileName(appended++, event.id as string)), serializeEvent(event));
}

/** The search items' stored bytes (get by id answers them as stored), in the order of a search walk with these filters. */
async function walkedItems(query: Record<string, string> = {}): Promise<string[]> {
  const ids = (await walkRaw(server, ID, { ...query, limit: 7 })).items.map((item) => item.id as string);
  return Promise.all(ids.map(async (id) => (await server.get(`/api/conversations/${ID}/events/${id}`)).text));
}

test('resend_mode=all: a full_state frame, then every stored event in search order, each the bytes the server stores', async () => {
  const expected = await walkedItems();
  const socket = openTestSocket(socketUrl(server.url, ID, 'resend_mode=all'));
  const frames = await socket.framesArrived(1 + expected.length);
  expect(frames.slice(1)).toEqual(expected);
  const state = JSON.parse(frames[0]!) as { kind: string; key: string; source: string; value: { id: string; agent: { llm: { api_key: string } } } };
  expect(state).toMatchObject({ kind: 'ConversationStateUpdateEvent', key: 'full_state', source: 'environment', value: { id: ID } });
  expect(state.value.agent.llm.api_key).toBe('**********');
  for (const secret of STORED_SECRETS) expect(frames[0]).not.toContain(secret);
  socket.ws.close();
});

test('resend_all=true (deprecated) resends everything; no resend mode resends nothing', async () => {
  const expected = await walkedItems();
  const all = openTestSocket(socketUrl(server.url, ID, 'resend_all=true'));
  expect((await all.framesArrived(1 + expected.length)).slice(1)).toEqual(expected);
  all.ws.close();
  const none = openTestSocket(socketUrl(server.url, ID));
  await none.framesArrived(1);
  // A round trip on the same socket: its answer follows anything the server sent before it.
  none.ws.send('{"role": "user"}');
  const [, answer] = await none.framesArrived(2);
  expect(JSON.parse(answer!)).toMatchObject({ kind: 'ServerErrorEvent', code: 'ReadOnlyConversation' });
  none.ws.close();
});

test('resend_mode=since resends the events at or after after_timestamp (inclusive), as the search with timestamp__gte', async () => {
  const after = stamp(12);
  const expected = await walkedItems({ timestamp__gte: after });
  expect(expected.length).toBeGreaterThan(0);
  expect(expected.length).toBeLessThan(EVENTS.length);
  const socket = openTestSocket(socketUrl(server.url, ID, `resend_mode=since&after_timestamp=${after}`));
  expect((await socket.framesArrived(1 + expected.length)).slice(1)).toEqual(expected);
  socket.ws.close();
  // `since` without after_timestamp resends nothing, as in the reference.
  const bare = openTestSocket(socketUrl(server.url, ID, 'resend_mode=since'));
  await bare.framesArrived(1);
  bare.ws.send('ping');
  expect(JSON.parse((await bare.framesArrived(2))[1]!)).toMatchObject({ kind: 'ServerErrorEvent' });
  bare.ws.close();
});

test('appended events reach every socket in append order, none twice, also when appended during a resend', async () => {
  const live = openTestSocket(socketUrl(server.url, ID));
  await live.framesArrived(1);
  const resending = openTestSocket(socketUrl(server.url, ID, 'resend_mode=all'));
  const before = appended;
  const fresh = [1, 2, 3].map((n) =>
    message({ id: eventId(100 + appended + n), timestamp: stamp(58 - n), source: 'agent' }, { text: [`appended ${n}`] }),
  );
  for (const event of fresh) append(event);
  const liveFrames = await live.framesArrived(1 + fresh.length);
  expect(liveFrames.slice(1).map((frame) => (JSON.parse(frame) as { id: string }).id)).toEqual(fresh.map((event) => event.id));
  const resent = await resending.framesArrived(1 + before);
  // Give the resending socket time to receive anything it would receive twice, then compare.
  live.ws.send('sync');
  await live.framesArrived(2 + fresh.length);
  resending.ws.send('sync');
  await resending.framesArrived(resent.length + 1);
  const ids = resending.frames.slice(1).map((frame) => (JSON.parse(frame) as { id: string; kind: string }).id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const event of fresh) expect(ids).toContain(event.id);
  live.ws.close();
  resending.ws.close();
});

test('an unknown conversation is closed 4004; a bad parameter refuses the handshake (403) with a body naming it', async () => {
  expect(await openTestSocket(socketUrl(server.url, conversationId(77))).closed).toEqual({ code: 4004, reason: 'Conversation not found' });
  const refusal = (id: string, query = '') => openTestSocket(socketUrl(server.url, id, query)).opened;
  await expect(refusal(ID, 'resend_mode=since&after_timestamp=yesterday')).rejects.toThrow(/^handshake answered 403 \{"detail":"after_timestamp: /);
  await expect(refusal('not-a-uuid')).rejects.toThrow(/^handshake answered 403 \{"detail":"conversation_id: /);
  // An escape that does not decode is a bad id, not a crash.
  await expect(refusal('%E0%A4%A')).rejects.toThrow(/^handshake answered 403 \{"detail":"conversation_id: /);
  await expect(refusal(ID, 'resend_mode=everything')).rejects.toThrow(/^handshake answered 403 \{"detail":"resend_mode: /);
  await expect(refusal(ID, 'resend_all=maybe')).rejects.toThrow(/^handshake answered 403 \{"detail":"resend_all: /);
  await expect(openTestSocket(`${server.url.replace('http', 'ws')}/sockets/elsewhere`).opened).rejects.toThrow('404');
});

test('more than 50 sockets on one conversation: the 51st is closed 1013, and the server goes on serving', async () => {
  const sockets = Array.from({ length: 50 }, () => openTestSocket(socketUrl(server.url, ID)));
  await Promise.all(sockets.map((socket) => socket.framesArrived(1)));
  expect(await openTestSocket(socketUrl(server.url, ID)).closed).toEqual({ code: 1013, reason: 'Too many connections for this conversation' });
  for (const socket of sockets) socket.ws.close();
  await Promise.all(sockets.map((socket) => socket.closed));
  const again = openTestSocket(socketUrl(server.url, ID));
  await again.framesArrived(1);
  again.ws.close();
});

test('a 10 MB frame closes that socket (1009, too big) and nothing else', async () => {
  const socket = openTestSocket(socketUrl(server.url, ID));
  await socket.framesArrived(1);
  socket.ws.send('x'.repeat(10 * 1024 * 1024));
  expect((await socket.closed).code).toBe(1009);
  expect((await server.statusAndBody(`/api/conversations/${ID}/events/count`)).status).toBe(200);
});

describe('with session keys', () => {
  let secured: LiveServer;
  beforeAll(async () => {
    secured = await startLiveServer([{ id: ID, events: EVENTS.slice(0, 3) }], {
      sessionApiKeys: ['key-one'],
      socketLimits: { ...SOCKET_LIMITS, authFrameTimeoutMs: 300, maxQueuedBytes: 8 * 1024 * 1024, resendPageTimeoutMs: 30_000 },
    });
  });
  afterAll(() => secured.stop());

  test('the key by header, by query or by a first auth frame opens the socket; a wrong or missing one closes it 4001', async () => {
    const byHeader = openTestSocket(socketUrl(secured.url, ID, 'resend_mode=all'), { 'X-Session-API-Key': 'key-one' });
    expect((await byHeader.framesArrived(4)).length).toBe(4);
    const byQuery = openTestSocket(socketUrl(secured.url, ID, 'resend_mode=all&session_api_key=key-one'));
    expect((await byQuery.framesArrived(4)).length).toBe(4);
    const byFrame = openTestSocket(socketUrl(secured.url, ID, 'resend_mode=all'));
    await byFrame.opened;
    byFrame.ws.send(JSON.stringify({ type: 'auth', session_api_key: 'key-one' }));
    expect((await byFrame.framesArrived(4)).length).toBe(4);
    for (const socket of [byHeader, byQuery, byFrame]) socket.ws.close();

    const failed = { code: 4001, reason: 'Authentication failed' };
    expect(await openTestSocket(socketUrl(secured.url, ID), { 'X-Session-API-Key': 'wrong' }).closed).toEqual(failed);
    expect(await openTestSocket(socketUrl(secured.url, ID, 'session_api_key=wrong')).closed).toEqual(failed);
    const wrongFrame = openTestSocket(socketUrl(secured.url, ID));
    await wrongFrame.opened;
    wrongFrame.ws.send(JSON.stringify({ type: 'auth', session_api_key: 'wrong' }));
    expect(await wrongFrame.closed).toEqual(failed);
    // Silent past the (shortened) wait for the auth frame.
    expect(await openTestSocket(socketUrl(secured.url, ID)).closed).toEqual(failed);
    // Nothing about the conversation before authentication: an unknown one is also 4001.
    expect(await openTestSocket(socketUrl(secured.url, conversationId(77)), { 'X-Session-API-Key': 'wrong' }).closed).toEqual(failed);
  });
});

test('a consumer that stops reading is cut off once its bounded queue fills; sockets that read get every event, bursts and resends past the bound included; the server goes on serving', async () => {
  const limited = await startLiveServer([{ id: ID, events: EVENTS.slice(0, 1) }], {
    socketLimits: { ...SOCKET_LIMITS, maxQueuedBytes: 1024 * 1024, resendPageTimeoutMs: 30_000 },
  });
  try {
    // A handshake by hand, then never a read: what the server sends piles up on its side.
    const { port } = new URL(limited.url);
    const raw = net.connect(Number(port), '127.0.0.1');
    // Read up to the first frame, the state sent once the socket is subscribed; then never again.
    let received = '';
    const subscribed = new Promise<void>((resolve) =>
      raw.on('data', (chunk) => {
        received += String(chunk);
        if (received.includes('full_state')) {
          raw.pause();
          resolve();
        }
      }),
    );
    raw.write(
      `GET /sockets/events/${ID} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    await subscribed;
    expect(received).toMatch(/^HTTP\/1.1 101/);
    const reading = openTestSocket(socketUrl(limited.url, ID));
    await reading.framesArrived(1);
    const bulky = 'x'.repeat(512 * 1024);
    // All at once: a burst far past the bound, which a socket that reads takes in full.
    for (let n = 1; n <= 40; n++) {
      const event = message({ id: eventId(500 + n), timestamp: stamp(30), source: 'agent' }, { text: [bulky] });
      writeFileSync(path.join(limited.root, HEX, 'events', eventFileName(n, event.id as string)), serializeEvent(event));
    }
    await eventually(() => expect(limited.logs.join('\n')).toContain('its consumer stopped reading'), { withinMs: 20_000, everyMs: 100 });
    raw.destroy();
    const delivered = await reading.framesArrived(41);
    expect(delivered.slice(1).map((frame) => (JSON.parse(frame) as { id: string }).id)).toEqual(
      Array.from({ length: 40 }, (_, n) => eventId(500 + n + 1)),
    );
    reading.ws.close();
    // The same 20 MiB resent to a socket that reads: sent as it takes them, not cut off.
    const resending = openTestSocket(socketUrl(limited.url, ID, 'resend_mode=all'));
    expect((await resending.framesArrived(42)).length).toBe(42);
    resending.ws.close();
    expect((await limited.statusAndBody(`/api/conversations/${ID}/events/count`)).body).toBe(41);
  } finally {
    await limited.stop();
  }
});
