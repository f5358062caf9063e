/**
 * The typed client's functions for this server's own operations, against the real server:
 * the page, the iterator over every page, the count, and an export read as a stream.
 */
import type { Event } from '../../src/contract';
import { action, conversationId, eventId, message } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';

const FIRST = conversationId(1);
const SECOND = conversationId(2);

function events(base: number, minute: string): Event[] {
  return Array.from({ length: 12 }, (_, i) =>
    i % 2
      ? action({ id: eventId(base + i), timestamp: `2026-07-01T10:${minute}:${String(i).padStart(2, '0')}` })
      : message(
          { id: eventId(base + i), timestamp: `2026-07-01T10:${minute}:${String(i).padStart(2, '0')}`, source: 'user' },
          { text: [`note ${i}`] },
        ),
  );
}

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer([
    { id: FIRST, events: events(100, '01') },
    { id: SECOND, events: events(200, '00') },
  ]);
});
afterAll(() => server.stop());

it('iterates every hit of every page, the same as one large page, and counts as many', async () => {
  const hits = [];
  for await (const hit of server.client.iterateStoredEvents({ kind: 'MessageEvent', limit: 5 })) hits.push(hit);
  const whole = await server.client.searchStoredEvents({ kind: 'MessageEvent', limit: 100 });
  if (!whole.ok) throw whole.error;
  expect(whole.page.next_page_id).toBeNull();
  expect(hits).toEqual(whole.page.items);
  expect(hits.map((hit) => hit.conversation_id)).toEqual([...Array(6).fill(SECOND), ...Array(6).fill(FIRST)]);
  const counted = await server.client.countStoredEvents({ kind: 'MessageEvent' });
  expect(counted.ok && counted.count).toBe(12);
});

it('a cursor this server did not hand out starts the walk again, as the search of one conversation does', async () => {
  const result = await server.client.searchStoredEvents({ page_id: 'not-a-cursor', limit: 3 });
  const first = await server.client.searchStoredEvents({ limit: 3 });
  if (!result.ok || !first.ok) throw new Error('the search failed');
  expect(result.page).toEqual(first.page);
});

it('exports a conversation as a stream with its file name; an unknown one is a 404 value', async () => {
  const exported = await server.client.exportConversation(FIRST, 'jsonl');
  if (!exported.ok) throw exported.error;
  expect(exported.fileName).toBe(`conversation-${FIRST}.jsonl`);
  const lines = (await exported.response.text()).trim().split('\n');
  expect(lines.map((line) => (JSON.parse(line) as Event).id)).toEqual(events(100, '01').map((event) => event.id));
  const missing = await server.client.exportConversation(conversationId(9), 'markdown');
  expect(missing.ok ? 0 : missing.error.status).toBe(404);
});
