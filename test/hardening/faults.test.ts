/**
 * Storage faults while the server runs, over HTTP: a file caught half-written is retried
 * and served once complete, a conversation deleted mid-traffic is a 404 (never a 500), and
 * a directory the server may not read is a logged 500 with a correlation id that the next
 * request recovers from. Root reads whatever a mode forbids, so that part runs the real CLI
 * without root's file-permission capabilities (as root still, so it can enter the checkout
 * wherever the clone lives, a private folder included).
 */
import { appendFileSync, chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Event } from '../../src/contract';
import { eventFileName, generateConversation, serializeEvent, writeConversation } from '../../src/fixture';
import { type ServerProcess, startServerProcess } from '../../dev/soak/server-process';
import { conversationId } from '../support/events';
import { eventually } from '../support/eventually';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { pageBody, searchOrder } from '../support/search-requests';

const CONVERSATION = conversationId(100);
const HEX = CONVERSATION.replaceAll('-', '');
const EVENTS = generateConversation({ events: 8, seed: 'faults' });
const LATE = generateConversation({ events: 10, seed: 'faults' })[8]!;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Watch notifications arrive within milliseconds; a loaded CI machine gets more room. */
const WITHIN = { withinMs: 5000, everyMs: 25 };

const search = (server: LiveServer) => server.statusAndBody(`/api/conversations/${CONVERSATION}/events/search`);
const health = async (server: LiveServer) => (await server.statusAndBody('/health')).body as Record<string, number>;
const logLines = (lines: string[]) => lines.flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as Record<string, unknown>] : []));

describe('an event file caught half-written', () => {
  let server: LiveServer;
  beforeEach(async () => {
    server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }]);
  });
  afterEach(() => server.stop());

  const lateFile = () => path.join(server.root, HEX, 'events', eventFileName(EVENTS.length, LATE.id!));
  const complete = serializeEvent(LATE as Event);

  it.each([
    ['while the conversation is being served', true],
    ['before the conversation is first loaded', false],
  ])('%s is skipped, then served once its writer finishes', async (_name, loadedFirst) => {
    if (loadedFirst) expect(await search(server)).toEqual({ status: 200, body: pageBody(searchOrder(EVENTS)) });
    writeFileSync(lateFile(), complete.slice(0, complete.length / 2));
    await eventually(async () => {
      expect(await search(server)).toEqual({ status: 200, body: pageBody(searchOrder(EVENTS)) });
      expect((await health(server))['events_skipped_invalid']).toBe(1);
    }, WITHIN);

    appendFileSync(lateFile(), complete.slice(complete.length / 2));
    await eventually(async () => expect(await search(server)).toEqual({ status: 200, body: pageBody(searchOrder([...EVENTS, LATE])) }), WITHIN);
    expect(await health(server)).toMatchObject({
      status: 'ok',
      conversations_loaded: 1,
      events_loaded: EVENTS.length + 1,
      events_skipped_invalid: 0,
    });
    expect(logLines(server.logs).map((line) => line['message'])).toEqual(
      expect.arrayContaining(['event files skipped', 'event file served after being skipped']),
    );
  });
});

describe('a conversation directory deleted while it is served', () => {
  it('answers 200 until the deletion and 404 after it, never anything else, and 404 from then on', async () => {
    const server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }]);
    try {
      expect((await search(server)).status).toBe(200);
      const statuses: number[] = [];
      const traffic = (async () => {
        const deadline = performance.now() + WITHIN.withinMs;
        while (performance.now() < deadline && !(statuses.length >= 5 && statuses.slice(-5).every((status) => status === 404))) {
          statuses.push((await search(server)).status);
        }
      })();
      // Removed once a request has been answered during the traffic, not after a fixed pause a
      // busy machine may outlast before the first request is answered.
      await eventually(() => expect(statuses.length).toBeGreaterThan(0), WITHIN);
      rmSync(path.join(server.root, HEX), { recursive: true, force: true });
      await traffic;

      const firstNotFound = statuses.indexOf(404);
      expect(statuses[0]).toBe(200);
      expect(firstNotFound).toBeGreaterThan(0);
      expect(statuses.slice(0, firstNotFound).every((status) => status === 200)).toBe(true);
      expect(statuses.slice(firstNotFound).every((status) => status === 404)).toBe(true);
      expect(await search(server)).toEqual({ status: 404, body: { detail: `Conversation not found: ${CONVERSATION}` } });
      expect((await health(server))['conversations_loaded']).toBe(0);
    } finally {
      await server.stop();
    }
  });
});

describe('an events/ path that is a regular file', () => {
  // Not a conversation with no events yet: its events were replaced by a file and are
  // lost, so the operator must see it, as with an unreadable directory below.
  it('is a logged 500 with a correlation id', async () => {
    const server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }]);
    try {
      rmSync(path.join(server.root, HEX, 'events'), { recursive: true });
      writeFileSync(path.join(server.root, HEX, 'events'), 'not a directory');
      const response = await search(server);
      expect(response).toEqual({ status: 500, body: { detail: 'Internal Server Error', correlation_id: expect.stringMatching(UUID) } });
      expect(server.logs.join('\n')).toContain(path.join(server.root, HEX, 'events'));
    } finally {
      await server.stop();
    }
  });
});

describe('a directory the server may not read (the real CLI, subject to file permissions even when the tests run as root)', () => {
  const OTHER = conversationId(101);
  let root: string;
  let server: ServerProcess;
  const events = (id: string) => path.join(root, id.replaceAll('-', ''), 'events');
  const searchOf = async (id: string) => {
    const response = await fetch(`${server.url}/api/conversations/${id}/events/search`);
    return { status: response.status, body: (await response.json()) as unknown };
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'hardening-faults-'));
    writeConversation(root, CONVERSATION, EVENTS);
    writeConversation(root, OTHER, EVENTS);
    server = await startServerProcess({ conversationsPath: root, obeyFilePermissions: true });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('an unreadable events/ is a 500 whose correlation id is in a log line naming the directory; once readable, it is served', async () => {
    chmodSync(events(CONVERSATION), 0o000);
    const failed = await searchOf(CONVERSATION);
    expect(failed).toEqual({ status: 500, body: { detail: 'Internal Server Error', correlation_id: expect.stringMatching(UUID) } });
    const { correlation_id: correlationId } = failed.body as { correlation_id: string };
    expect(logLines(server.stderr).filter((line) => line['level'] === 'error')).toEqual([
      expect.objectContaining({
        message: 'request failed',
        correlation_id: correlationId,
        error: expect.stringContaining(`Cannot list the event files in ${events(CONVERSATION)} (EACCES)`),
      }),
    ]);

    chmodSync(events(CONVERSATION), 0o755);
    expect(await searchOf(CONVERSATION)).toEqual({ status: 200, body: pageBody(searchOrder(EVENTS)) });
    expect(await searchOf(OTHER)).toEqual({ status: 200, body: pageBody(searchOrder(EVENTS)) });
  });

  it('an unreadable event file is skipped and counted, and served once readable and touched again', async () => {
    const file = path.join(events(OTHER), eventFileName(EVENTS.length, LATE.id!));
    writeFileSync(file, serializeEvent(LATE as Event));
    chmodSync(file, 0o000);
    const warned = () => logLines(server.stderr).filter((line) => line['message'] === 'event files skipped' && line['example'] === file);
    await eventually(async () => expect(warned()).toEqual([expect.objectContaining({ reason: 'cannot be read (EACCES)' })]), WITHIN);
    expect(await searchOf(OTHER)).toEqual({ status: 200, body: pageBody(searchOrder(EVENTS)) });

    chmodSync(file, 0o644);
    appendFileSync(file, '\n');
    await eventually(async () => expect(await searchOf(OTHER)).toEqual({ status: 200, body: pageBody(searchOrder([...EVENTS, LATE])) }), WITHIN);
  });

  it('the server is still up', async () => {
    expect((await fetch(`${server.url}/alive`)).status).toBe(200);
  });
});
