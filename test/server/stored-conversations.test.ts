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

const NO_USAGE = { tokens: null, cost: null, wall_time_seconds: null };

async function listed(): Promise<{ id: string; title: string | null; event_count: number; last_event_at: string | null }[]> {
  const result = await server.client.listStoredConversations();
  if (!result.ok) throw result.error;
  return result.list.items;
}

it('lists every conversation with its title, event count and last event time, newest activity first', async () => {
  const items = await listed();
  expect(items.map((item) => item.id)).toEqual([NEWER, OLDER, EMPTY]);
  expect(items[1]).toEqual({
    id: OLDER,
    title: expect.stringContaining('Fix the flaky test'),
    event_count: 2,
    last_event_at: '2026-03-01T09:05:00',
    // Recorded no LLM use: no tokens and no cost, rather than zeros; the time is meta.json's.
    usage: { tokens: null, cost: null, wall_time_seconds: 299.999999 },
  });
  expect(items[2]).toEqual({ id: EMPTY, title: expect.any(String), event_count: 0, last_event_at: null, usage: NO_USAGE });
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
  expect(items.find((item) => item.id === conversationId(9))).toEqual({
    id: conversationId(9),
    title: null,
    event_count: 0,
    last_event_at: null,
    usage: NO_USAGE,
  });

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
    expect(await keyed.statusAndBody('/api/stored-conversations', { 'X-Session-API-Key': 'list-key' })).toEqual({
      status: 200,
      body: {
        items: [],
        usage: { conversations: 0, conversations_with_tokens: 0, conversations_with_cost: 0, tokens: null, cost: null, wall_time_seconds: null },
      },
    });
  } finally {
    await keyed.stop();
  }
});

it('gives the tokens, cost and time the agent server recorded, and sums them over the list', async () => {
  const recorded = conversationId(20);
  const hex = recorded.replaceAll('-', '');
  mkdirSync(path.join(server.root, hex, 'events'), { recursive: true });
  const metrics = (model: string, prompt: number, completion: number, cacheRead: number, costs: number[]) => ({
    model_name: model,
    accumulated_cost: costs.reduce((a, b) => a + b, 0),
    accumulated_token_usage: {
      model,
      prompt_tokens: prompt,
      completion_tokens: completion,
      cache_read_tokens: cacheRead,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
    },
    costs: costs.map((cost) => ({ model, cost, timestamp: 1 })),
    token_usages: [{ model, prompt_tokens: prompt, completion_tokens: completion, response_id: `${model}-1` }],
  });
  writeFileSync(
    path.join(server.root, hex, 'base_state.json'),
    JSON.stringify({
      id: recorded,
      stats: { usage_to_metrics: { agent: metrics('gpt', 1000, 200, 600, [0.25, 0.5]), condenser: metrics('mini', 300, 50, 0, []) } },
    }),
  );
  writeFileSync(
    path.join(server.root, hex, 'meta.json'),
    JSON.stringify({ id: recorded, title: 'Paid for', created_at: '2026-03-04T10:00:00Z', updated_at: '2026-03-04T10:02:30Z' }),
  );
  const result = await server.client.listStoredConversations();
  if (!result.ok) throw result.error;
  const usage = {
    tokens: { input_tokens: 1300, output_tokens: 250, cache_read_tokens: 600, cache_write_tokens: 0, reasoning_tokens: 0 },
    cost: 0.75,
    wall_time_seconds: 150,
  };
  expect(result.list.items.find((item) => item.id === recorded)?.usage).toEqual(usage);
  const others = result.list.items.filter((item) => item.id !== recorded);
  expect(result.list.usage).toEqual({
    conversations: result.list.items.length,
    conversations_with_tokens: 1,
    conversations_with_cost: 1,
    tokens: usage.tokens,
    cost: 0.75,
    wall_time_seconds: 150 + others.reduce((sum, item) => sum + (item.usage?.wall_time_seconds ?? 0), 0),
  });
  rmSync(path.join(server.root, hex), { recursive: true });
});
