/**
 * `GET /api/stored-conversations` (listStoredConversations, this server's own operation)
 * over HTTP on real files: what each item says, the order, and that it follows the
 * directory as files are written, all with the response checked against the contract.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { conversationId, eventId, message, pause } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';

const OLDER = conversationId(1);
const NEWER = conversationId(2);
const EMPTY = conversationId(3);

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer(
    [
      {
        id: OLDER,
        events: [
          message(
            { id: eventId(1), timestamp: '2026-03-01T09:00:00.000001', source: 'user' },
            { text: ['Fix the flaky test in the billing module'] },
          ),
          pause({ id: eventId(2), timestamp: '2026-03-01T09:05:00' }),
        ],
      },
      { id: NEWER, events: [message({ id: eventId(3), timestamp: '2026-03-02T08:00:00', source: 'user' }, { text: ['Second task'] })] },
      { id: EMPTY, events: [] },
    ],
    { validateResponses: true },
  );
});
afterAll(() => server.stop());
afterEach(() => {
  expect(server.logs.filter((line) => line.includes('"level":"error"'))).toEqual([]);
});

async function listed(): Promise<{ id: string; title: string | null; event_count: number; last_event_at: string | null }[]> {
  const result = await server.client.listStoredConversations();
  if (!result.ok) throw result.error;
  return result.list.items;
}

it('lists every conversation with its title, event count and last event time, newest activity first', async () => {
  const items = await listed();
  expect(items.map((item) => item.id)).toEqual([NEWER, OLDER, EMPTY]);
  expect(items[1]).toEqual({ id: OLDER, title: expect.stringContaining('Fix the flaky test'), event_count: 2, last_event_at: '2026-03-01T09:05:00' });
  expect(items[2]).toEqual({ id: EMPTY, title: expect.any(String), event_count: 0, last_event_at: null });
});

it('follows the directory: an appended event moves its conversation up, a new one appears, a deleted one goes', async () => {
  const olderEvents = path.join(server.root, OLDER.replaceAll('-', ''), 'events');
  const appended = message({ id: eventId(4), timestamp: '2026-03-03T10:00:00', source: 'agent' }, { text: ['Done.'] });
  writeFileSync(path.join(olderEvents, `event-00002-${eventId(4)}.json`), JSON.stringify(appended));
  const lateHex = conversationId(9).replaceAll('-', '');
  mkdirSync(path.join(server.root, lateHex), { recursive: true });

  const items = await listed();
  // Conversations without events come last, by id.
  expect(items.map((item) => item.id)).toEqual([OLDER, NEWER, EMPTY, conversationId(9)]);
  expect(items[0]).toMatchObject({ id: OLDER, event_count: 3, last_event_at: '2026-03-03T10:00:00' });
  // A directory without meta.json or events/ is still a conversation: no title, no events.
  expect(items.find((item) => item.id === conversationId(9))).toEqual({ id: conversationId(9), title: null, event_count: 0, last_event_at: null });

  rmSync(path.join(server.root, lateHex), { recursive: true });
  expect((await listed()).map((item) => item.id)).toEqual([OLDER, NEWER, EMPTY]);
});

it('ignores entries that are not conversation directories, and a last file that is not JSON yet', async () => {
  writeFileSync(path.join(server.root, 'notes.txt'), 'not a conversation');
  mkdirSync(path.join(server.root, 'not-a-conversation-id'));
  const newerEvents = path.join(server.root, NEWER.replaceAll('-', ''), 'events');
  writeFileSync(path.join(newerEvents, `event-00001-${eventId(5)}.json`), '{"id": "half writ');

  const items = await listed();
  expect(items.map((item) => item.id).sort()).toEqual([OLDER, NEWER, EMPTY].sort());
  // The half-written file counts as a file; the time is the last one that parses.
  expect(items.find((item) => item.id === NEWER)).toMatchObject({ event_count: 2, last_event_at: '2026-03-02T08:00:00' });
});

it('needs the session key when the server has one, like every /api operation', async () => {
  const keyed = await startLiveServer([], { sessionApiKeys: ['list-key'] });
  try {
    expect(await keyed.statusAndBody('/api/stored-conversations')).toEqual({ status: 401, body: { detail: 'Unauthorized' } });
    expect(await keyed.statusAndBody('/api/stored-conversations', { 'X-Session-API-Key': 'list-key' })).toEqual({ status: 200, body: { items: [] } });
  } finally {
    await keyed.stop();
  }
});
