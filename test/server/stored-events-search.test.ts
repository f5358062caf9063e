/**
 * `GET /api/stored-conversations/events/search` and `.../events/count` (this server's own
 * operations) over HTTP on real files, every response checked against the contract: the
 * items are exactly the union of the per-conversation searches with the same filters, in
 * timestamp, conversation id, position order (reversed whole for TIMESTAMP_DESC); every
 * event comes once across pages while conversations grow, appear and disappear; hostile
 * input gets a 4xx or a correct page, never a 5xx. test/postgres runs this file again on
 * the PostgreSQL store.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { Event, components } from '../../src/contract';
import { eventFileName, serializeEvent, writeConversation } from '../../src/fixture/layout';
import { storedTimestampMicros } from '../../src/search';
import { action, agentError, conversationId, eventId, message, observation, pause } from '../support/events';
import { eventually } from '../support/eventually';
import { type LiveServer, type TestConversation, startLiveServer } from '../support/live-server';

type StoredEventPage = components['schemas']['StoredEventPage'];
type Hit = components['schemas']['StoredEventHit'];
type Query = Record<string, string | number>;

const SEARCH = '/api/stored-conversations/events/search';
const COUNT = '/api/stored-conversations/events/count';

/** Three conversations whose timestamps interleave, with ties across conversations and within one, and an event without a timestamp. */
function conversations(): TestConversation[] {
  const untimed = pause({ id: eventId(1), timestamp: '' }) as Event & { timestamp?: string };
  delete untimed.timestamp;
  return [
    {
      id: conversationId(2),
      events: [
        message(
          { id: eventId(10), timestamp: '2026-05-01T10:00:00', source: 'user' },
          { text: ['Fix the 100% failing build; grep for "a_b" \\ (x) [y] .* ?'] },
        ),
        action({ id: eventId(11), timestamp: '2026-05-01T10:00:01' }, 'Look at the build log.'),
        observation({ id: eventId(12), timestamp: '2026-05-01T10:00:02' }, 'build failed'),
        // The same instant as conversation 1's second event: conversation id breaks the tie.
        message(
          { id: eventId(13), timestamp: '2026-05-01T10:00:03', source: 'agent' },
          { text: ["It's fixed; O'Brien's DROP TABLE events;-- note"] },
        ),
        untimed,
      ],
    },
    {
      id: conversationId(1),
      events: [
        message({ id: eventId(20), timestamp: '2026-05-01T09:59:59', source: 'user' }, { text: ['Deploy the build to staging'] }),
        message({ id: eventId(21), timestamp: '2026-05-01T10:00:03', source: 'agent' }, { text: ['Deploying the build now'] }),
        // Equal timestamps within one conversation keep their storage order.
        agentError({ id: eventId(22), timestamp: '2026-05-01T10:00:05' }),
        pause({ id: eventId(23), timestamp: '2026-05-01T10:00:05' }),
      ],
    },
    {
      id: conversationId(3),
      events: Array.from({ length: 30 }, (_, i) =>
        i % 3 === 0
          ? message(
              { id: eventId(100 + i), timestamp: `2026-05-01T10:00:${String(i).padStart(2, '0')}.5`, source: i % 2 ? 'agent' : 'user' },
              { text: [`step ${i} of the build`] },
            )
          : action({ id: eventId(100 + i), timestamp: `2026-05-01T10:00:${String(i).padStart(2, '0')}.5` }),
      ),
    },
    { id: conversationId(4), events: [] },
  ];
}

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer(conversations(), { validateResponses: true });
});
afterAll(() => server.stop());
afterEach(() => {
  expect(server.logs.filter((line) => line.includes('"level":"error"'))).toEqual([]);
});

function queryString(query: Query): string {
  const entries = Object.entries(query).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  return entries.length === 0 ? '' : `?${entries.join('&')}`;
}

async function page(query: Query): Promise<StoredEventPage> {
  const { status, body, text } = await server.get(SEARCH + queryString(query));
  if (status !== 200) throw new Error(`search ${JSON.stringify(query)}: ${status} ${text}`);
  return body as StoredEventPage;
}

/** Every item of a walk, following next_page_id; fails on a cursor handed out twice. */
async function walk(query: Query, limit: number): Promise<Hit[]> {
  const hits: Hit[] = [];
  const seen = new Set<string>();
  let pageId: string | null = null;
  do {
    const current = await page({ ...query, limit, ...(pageId ? { page_id: pageId } : {}) });
    expect(current.items.length).toBeLessThanOrEqual(limit);
    hits.push(...current.items);
    pageId = current.next_page_id;
    if (pageId !== null) {
      expect(seen.has(pageId)).toBe(false);
      seen.add(pageId);
      expect(current.items).toHaveLength(limit);
    }
  } while (pageId !== null);
  return hits;
}

/** The definition: each conversation's own search with the same filters, merged by timestamp, conversation id, position. */
async function unionOfPerConversationSearches(query: Query): Promise<{ conversation_id: string; event: Event }[]> {
  const listed = await server.client.listStoredConversations();
  if (!listed.ok) throw listed.error;
  const { sort_order: order, ...filters } = query;
  const rows: { conversation_id: string; event: Event; micros: number; place: number }[] = [];
  for (const conversation of listed.list.items) {
    const events = await server.client.listEvents(conversation.id, filters as never);
    events.forEach((event, place) => {
      rows.push({ conversation_id: conversation.id, event, micros: storedTimestampMicros(event.timestamp) ?? Number.NEGATIVE_INFINITY, place });
    });
  }
  rows.sort(
    (a, b) => (a.micros === b.micros ? 0 : a.micros < b.micros ? -1 : 1) || a.conversation_id.localeCompare(b.conversation_id) || a.place - b.place,
  );
  const ordered = rows.map(({ conversation_id, event }) => ({ conversation_id, event }));
  return order === 'TIMESTAMP_DESC' ? ordered.reverse() : ordered;
}

async function count(query: Query): Promise<number> {
  const { status, body, text } = await server.get(COUNT + queryString(query));
  if (status !== 200) throw new Error(`count ${JSON.stringify(query)}: ${status} ${text}`);
  return body as number;
}

const FILTERS: Query[] = [
  {},
  { kind: 'MessageEvent' },
  { kind: 'openhands.sdk.event.llm_convertible.action.ActionEvent' },
  { source: 'user' },
  { body: 'BUILD' },
  { body: 'nothing matches this' },
  { body: 'build', source: 'user', timestamp__gte: '2026-05-01T10:00:03' },
  { body: 'build', kind: 'openhands.sdk.event.llm_convertible.action.ActionEvent' },
  { timestamp__gte: '2026-05-01T10:00:03', timestamp__lt: '2026-05-01T10:00:20' },
  { kind: 'MessageEvent', source: 'agent', timestamp__lt: '2026-05-01T10:00:10' },
  { kind: 'NoSuchEvent' },
];

describe.each(FILTERS)('with filters %j', (filters) => {
  it.each(['TIMESTAMP', 'TIMESTAMP_DESC'])(
    'the walk in %s order is exactly the union of the per-conversation searches, at every page size',
    async (order) => {
      const query = { ...filters, sort_order: order };
      const expected = await unionOfPerConversationSearches(query);
      for (const limit of [1, 4, 100]) {
        const hits = await walk(query, limit);
        expect(hits.map(({ conversation_id, event }) => ({ conversation_id, event }))).toEqual(expected);
      }
    },
  );

  it('counts what a walk returns, the sum of the per-conversation counts', async () => {
    expect(await count(filters)).toBe((await unionOfPerConversationSearches(filters)).length);
  });
});

it('names each hit with its conversation and the title the list gives', async () => {
  const listed = await server.client.listStoredConversations();
  if (!listed.ok) throw listed.error;
  const titles = new Map(listed.list.items.map((item) => [item.id, item.title]));
  const hits = await walk({}, 100);
  expect(hits.length).toBeGreaterThan(0);
  for (const hit of hits) expect(hit.title).toBe(titles.get(hit.conversation_id));
  // Titles come from meta.json, on both stores.
  expect(hits.some((hit) => typeof hit.title === 'string' && hit.title.length > 0)).toBe(true);
  // The event without a timestamp sorts first; the tie at 10:00:03 goes to the smaller conversation id.
  expect(hits[0]?.event.id).toBe(eventId(1));
  const tied = hits.filter((hit) => hit.event.timestamp === '2026-05-01T10:00:03').map((hit) => hit.event.id);
  expect(tied).toEqual([eventId(21), eventId(13)]);
});

it('finds text with regex and SQL metacharacters literally', async () => {
  for (const needle of ['100%', 'a_b', '\\ (x) [y] .* ?', "o'brien's drop table events;--"]) {
    const hits = await walk({ body: needle }, 10);
    expect(hits.map((hit) => hit.event.id)).toEqual([needle.startsWith('o') ? eventId(13) : eventId(10)]);
  }
  expect(await walk({ body: '%' }, 10)).toHaveLength(1);
  expect(await walk({ body: '_' }, 10)).toHaveLength(1);
});

describe('bad input is a 422 naming the parameter', () => {
  async function problem(query: string): Promise<{ status: number; loc: unknown[] }> {
    const { status, body } = await server.get(SEARCH + query);
    return { status, loc: ((body as { detail?: { loc: unknown[] }[] }).detail ?? []).map((item) => item.loc) };
  }

  it('a limit past the maximum, or below one', async () => {
    expect(await problem('?limit=101')).toEqual({ status: 422, loc: [['query', 'limit']] });
    expect(await problem('?limit=0')).toEqual({ status: 422, loc: [['query', 'limit']] });
  });

  it('a page_id this server never handed out (garbage, an empty one, a forged key, one from the other order) starts the walk again', async () => {
    const forged = Buffer.from(JSON.stringify([1, 'a', 1, 'not hex', 0])).toString('base64url');
    const descending = (await page({ limit: 1, sort_order: 'TIMESTAMP_DESC' })).next_page_id!;
    const first = await page({ limit: 3 });
    for (const pageId of ['garbage!', '', 'a'.repeat(400), forged, descending]) {
      expect({ pageId: pageId.slice(0, 20), page: await page({ limit: 3, page_id: pageId }) }).toEqual({ pageId: pageId.slice(0, 20), page: first });
    }
  });

  it('a page_id past its maximum length: 422 naming it', async () => {
    expect(await problem(`?page_id=${'a'.repeat(5000)}`)).toEqual({ status: 422, loc: [['query', 'page_id']] });
  });

  it('a page_id longer than a request line may be: a 4xx, never a 5xx', async () => {
    const { status } = await server.get(`${SEARCH}?page_id=${'x'.repeat(100_000)}`);
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
  });

  it('an unknown format, an unknown kind value in the count', async () => {
    expect((await server.get(`${SEARCH}?sort_order=SIDEWAYS`)).status).toBe(422);
    expect((await server.get(`${COUNT}?timestamp__gte=yesterday`)).status).toBe(422);
  });
});

it('answers any query string with a 2xx or a 4xx, never a 5xx (property-based, replayable by its seed)', async () => {
  const value = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.constantFrom('%', '_', '\\', "'", '--', '.*', '[a-', '(?:', '\u0000', 'x'.repeat(600)),
  );
  const parameter = fc.constantFrom('body', 'page_id', 'kind', 'source', 'limit', 'sort_order', 'timestamp__gte', 'timestamp__lt');
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(parameter, value), { maxLength: 4 }), fc.boolean(), async (pairs, counting) => {
      const query = pairs.map(([name, text]) => `${name}=${encodeURIComponent(text)}`).join('&');
      const { status, text } = await server.get(`${counting ? COUNT : SEARCH}?${query}`);
      expect({ query, status: status < 500 ? 'not 5xx' : `${status} ${text}` }).toEqual({ query, status: 'not 5xx' });
    }),
    { numRuns: 80, seed: 20261125 },
  );
});

describe('every event exactly once across pages while the store changes', () => {
  it('appends, a new conversation and a deleted one between pages neither repeat nor skip an event', async () => {
    const before = await walk({}, 100);
    const first = await page({ limit: 10 });
    const returned = [...first.items];

    // Between pages: an event appended after the cursor, one appended before it, a new
    // conversation with events on both sides, and a conversation deleted.
    const hex3 = conversationId(3).replaceAll('-', '');
    const late = message({ id: eventId(500), timestamp: '2026-05-01T11:00:00', source: 'agent' }, { text: ['appended late'] });
    const early = message({ id: eventId(501), timestamp: '2026-05-01T08:00:00', source: 'agent' }, { text: ['appended early'] });
    writeFileSync(path.join(server.root, hex3, 'events', eventFileName(30, eventId(500))), serializeEvent(late));
    writeFileSync(path.join(server.root, hex3, 'events', eventFileName(31, eventId(501))), serializeEvent(early));
    writeConversation(server.root, conversationId(9), [
      message({ id: eventId(900), timestamp: '2026-05-01T07:00:00', source: 'user' }, { text: ['before the cursor'] }),
      message({ id: eventId(901), timestamp: '2026-05-01T12:00:00', source: 'user' }, { text: ['after the cursor'] }),
    ]);
    const deleted = conversationId(1);
    rmSync(path.join(server.root, deleted.replaceAll('-', '')), { recursive: true });
    // The store serves what is written within a second; the walk goes on once it does.
    await eventually(
      async () => {
        for (const [conversation, event] of [
          [conversationId(3), eventId(500)],
          [conversationId(3), eventId(501)],
          [conversationId(9), eventId(901)],
        ] as const) {
          expect((await server.client.getEvent(conversation, event)).ok).toBe(true);
        }
        expect((await server.client.countEvents(deleted)).ok).toBe(false);
      },
      { withinMs: 5000, everyMs: 100 },
    );

    let pageId = first.next_page_id;
    while (pageId !== null) {
      const next = await page({ limit: 10, page_id: pageId });
      returned.push(...next.items);
      pageId = next.next_page_id;
    }
    const ids = returned.map((hit) => hit.event.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Everything that was there and not deleted came; what sorts after the cursor came too; what sorts before it did not.
    const firstIds = new Set(first.items.map((hit) => hit.event.id));
    const kept = before.filter((hit) => hit.conversation_id !== deleted || firstIds.has(hit.event.id));
    for (const hit of kept) expect(ids).toContain(hit.event.id);
    expect(ids).toEqual(expect.arrayContaining([eventId(500), eventId(901)]));
    expect(ids).not.toContain(eventId(501));
    expect(ids).not.toContain(eventId(900));
    // The order holds across the pages.
    const micros = returned.map((hit) => storedTimestampMicros(hit.event.timestamp) ?? Number.NEGATIVE_INFINITY);
    for (let i = 1; i < micros.length; i++) expect(micros[i]!).toBeGreaterThanOrEqual(micros[i - 1]!);
  });
});
