/**
 * The `text` filter of `GET /api/stored-conversations/events/search` and `.../count` over
 * HTTP on real files: a case-insensitive substring of everything a person reads of an
 * event (message text, thoughts and reasoning, action arguments, observation content,
 * error strings, summaries, rejection reasons), combined with every other filter, paged
 * like any search, with needles shorter than a trigram too. test/postgres runs this file
 * again on the PostgreSQL store.
 */
import type { components } from '../../src/contract';
import { setTimeout as sleep } from 'node:timers/promises';
import { action, agentError, conversationError, conversationId, eventId, message, observation, pause, stateUpdate } from '../support/events';
import { type LiveServer, liveServerStoreKind, startLiveServer } from '../support/live-server';

type StoredEventPage = components['schemas']['StoredEventPage'];

const SEARCH = '/api/stored-conversations/events/search';
const COUNT = '/api/stored-conversations/events/count';

let server: LiveServer;

beforeAll(async () => {
  server = await startLiveServer([
    {
      id: conversationId(1),
      events: [
        message({ id: eventId(1), timestamp: '2026-05-01T10:00:00', source: 'user' }, { text: ['Please RUN the Migration script'] }),
        action({ id: eventId(2), timestamp: '2026-05-01T10:00:01' }, 'I will grep for TODO markers'),
        observation({ id: eventId(3), timestamp: '2026-05-01T10:00:02' }, 'found 3 TODO markers in src/app.ts'),
        agentError({ id: eventId(4), timestamp: '2026-05-01T10:00:03' }, 'Permission denied: /etc/shadow'),
        stateUpdate({ id: eventId(5), timestamp: '2026-05-01T10:00:04' }, 'agent_status', 'permission granted'),
      ],
    },
    {
      id: conversationId(2),
      events: [
        conversationError({ id: eventId(6), timestamp: '2026-05-01T09:00:00', source: 'environment' }, 'Sandbox crashed: out of memory'),
        pause({ id: eventId(7), timestamp: '2026-05-01T09:00:01' }),
        message({ id: eventId(8), timestamp: '2026-05-01T09:00:02', source: 'agent' }, { text: ['The todo list is empty'] }),
        observation({ id: eventId(9), timestamp: '2026-05-01T09:00:03' }, 'Über die Größe: 日本語のログ'),
      ],
    },
  ]);
});
afterAll(() => server.stop());

async function idsOf(query: string): Promise<string[]> {
  const response = await server.get(`${SEARCH}?${query}`);
  expect(response.status).toBe(200);
  return (response.body as StoredEventPage).items.map((hit) => hit.event.id!);
}

async function countOf(query: string): Promise<unknown> {
  const response = await server.get(`${COUNT}?${query}`);
  expect(response.status).toBe(200);
  return response.body;
}

const cases: [string, { query: string; want: string[] }][] = [
  ['message text, case folded', { query: 'text=run%20the%20MIGRATION', want: [eventId(1)] }],
  ["an action's thought and arguments", { query: 'text=grep%20for', want: [eventId(2)] }],
  ['observation content and thoughts alike', { query: 'text=todo%20markers', want: [eventId(2), eventId(3)] }],
  ['an error string', { query: 'text=permission%20denied', want: [eventId(4)] }],
  ["a conversation error's detail", { query: 'text=out%20of%20memory', want: [eventId(6)] }],
  ['across conversations, in timestamp order', { query: 'text=todo', want: [eventId(8), eventId(2), eventId(3)] }],
  ['newest first', { query: 'text=todo&sort_order=TIMESTAMP_DESC', want: [eventId(3), eventId(2), eventId(8)] }],
  ['combined with kind', { query: 'text=todo&kind=ObservationEvent', want: [eventId(3)] }],
  ['combined with source', { query: 'text=todo&source=agent', want: [eventId(8), eventId(2)] }],
  ['combined with a time window', { query: 'text=todo&timestamp__gte=2026-05-01T10:00:00', want: [eventId(2), eventId(3)] }],
  ['combined with body', { query: 'text=todo&body=list', want: [eventId(8)] }],
  ['text beyond ASCII, case folded', { query: `text=${encodeURIComponent('ÜBER DIE GRÖ')}`, want: [eventId(9)] }],
  ['text of three-byte characters', { query: `text=${encodeURIComponent('日本語')}`, want: [eventId(9)] }],
  ['a needle shorter than a trigram', { query: 'text=3%20', want: [eventId(3)] }],
  ['LIKE wildcards are literal', { query: 'text=%25', want: [] }],
  ['a state update is not searched', { query: 'text=permission%20granted', want: [] }],
  ['ids are not searched', { query: `text=${eventId(1)}`, want: [] }],
  ['nothing matches', { query: 'text=no%20such%20words', want: [] }],
];

it.each(cases)('%s', async (_name, { query, want }) => {
  expect(await idsOf(query)).toEqual(want);
  expect(await countOf(query.replace(/&sort_order=[A-Z_]+/, ''))).toBe(want.length);
});

it('pages a text search like any other: every match once, in order', async () => {
  const seen: string[] = [];
  let pageId: string | undefined;
  do {
    const response = await server.get(`${SEARCH}?text=todo&limit=1${pageId ? `&page_id=${encodeURIComponent(pageId)}` : ''}`);
    const page = response.body as StoredEventPage;
    seen.push(...page.items.map((hit) => hit.event.id!));
    pageId = page.next_page_id ?? undefined;
  } while (pageId);
  expect(seen).toEqual([eventId(8), eventId(2), eventId(3)]);
});

it('an empty text matches every event', async () => {
  expect(await countOf('text=')).toBe(await countOf(''));
});

describe('a needle whose trigrams many events hold without it', () => {
  // Sized past the store's two ways to a page (src/store/sql/sql-store.ts): more events
  // before the first match than the search checks one by one, and more events holding
  // every trigram of the needle, but not the needle, than it fetches from the trigram
  // index and sorts; so the page comes from walking the order and checking each event.
  const BEFORE_FIRST_MATCH = 2100;
  const DECOYS = 2100;
  const MATCHES = 25;
  const matchIds: string[] = [];
  let many: LiveServer;

  beforeAll(async () => {
    const events = [];
    let second = 0;
    const stamp = () => {
      const id = eventId(1000 + second);
      return { id, timestamp: new Date(Date.UTC(2026, 5, 1, 0, 0, second++)).toISOString().slice(0, 19) };
    };
    for (let n = 0; n < BEFORE_FIRST_MATCH; n++) events.push(observation(stamp(), 'nothing to see'));
    for (let n = 0; n < DECOYS; n++) {
      events.push(observation(stamp(), 'abcd and cdef, apart'));
      if (n % (DECOYS / MATCHES) === 0 && matchIds.length < MATCHES) {
        const match = stamp();
        matchIds.push(match.id);
        events.push(observation(match, 'found ABCDEF here'));
      }
    }
    many = await startLiveServer([{ id: conversationId(9), events }]);
  });
  afterAll(() => many.stop());

  async function walkPages(query: string): Promise<string[]> {
    const seen: string[] = [];
    let pageId: string | undefined;
    do {
      const response = await many.get(`${SEARCH}?${query}&limit=10${pageId ? `&page_id=${encodeURIComponent(pageId)}` : ''}`);
      expect(response.status).toBe(200);
      const page = response.body as StoredEventPage;
      seen.push(...page.items.map((hit) => hit.event.id!));
      pageId = page.next_page_id ?? undefined;
    } while (pageId);
    return seen;
  }

  async function countIn(query: string): Promise<unknown> {
    const response = await many.get(`${COUNT}?${query}`);
    expect(response.status).toBe(200);
    return response.body;
  }

  async function expectEveryMatchInOrder(): Promise<void> {
    expect(await walkPages('text=abcdef')).toEqual(matchIds);
    expect(await walkPages('text=abcdef&sort_order=TIMESTAMP_DESC')).toEqual([...matchIds].reverse());
    expect(await countIn('text=abcdef')).toBe(MATCHES);
    // A needle only the decoys hold: more candidates than matches, every one a match.
    expect(await walkPages('text=abcd%20and')).toHaveLength(DECOYS);
  }

  it('pages every match once, in order, while the trigram index is filled and once it is', async () => {
    await expectEveryMatchInOrder();
    // SQLite fills its trigram index behind the rows, and says when it has caught up.
    if (liveServerStoreKind() === 'sqlite') {
      while (!many.logs.some((line) => line.includes('text index built'))) await sleep(20);
      await expectEveryMatchInOrder();
    }
  });
});
