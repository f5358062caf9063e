import type { Event } from '../../src/contract';
import { generateConversation } from '../../src/fixture';
import { conversationId } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { type Query, pageBody, searchOrder, searchPath, walkRaw } from '../support/search-requests';

/*
 * Generated conversations (realistic kinds, ties and sub-millisecond steps), walked page
 * by page both with the typed client's iterator and with a raw `page_id` loop. The
 * expected order comes from searchOrder, which does not use the search module.
 */
const MAIN = conversationId(10);
const OTHER = conversationId(11);
const EVENTS = generateConversation({ events: 120, seed: 'server-paging' });
const OTHER_EVENTS = generateConversation({ events: 40, seed: 'server-paging-other' });

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer([
    { id: MAIN, events: EVENTS },
    { id: OTHER, events: OTHER_EVENTS },
  ]);
});
afterAll(() => server.stop());

type Filter = { name: string; query: Query; keep: (event: Event) => boolean };

const windowFrom = EVENTS[30]!.timestamp!;
const windowTo = EVENTS[95]!.timestamp!;
const FILTERS: Filter[] = [
  { name: 'kind ObservationEvent', query: { kind: 'ObservationEvent' }, keep: (event) => event.kind === 'ObservationEvent' },
  { name: 'source user', query: { source: 'user' }, keep: (event) => event.source === 'user' },
  {
    name: 'a timestamp window',
    query: { timestamp__gte: windowFrom, timestamp__lt: windowTo },
    keep: (event) => event.timestamp! >= windowFrom && event.timestamp! < windowTo,
  },
  {
    name: 'kind, source and window',
    query: { kind: 'ActionEvent', source: 'agent', timestamp__gte: windowFrom },
    keep: (event) => event.kind === 'ActionEvent' && event.timestamp! >= windowFrom,
  },
];

describe('the generated conversation', () => {
  it('has what these tests rely on: timestamp ties, several kinds, and matches for every filter', () => {
    const timestamps = EVENTS.map((event) => event.timestamp);
    expect(new Set(timestamps).size).toBeLessThan(EVENTS.length - 10);
    for (const filter of FILTERS) expect(EVENTS.filter(filter.keep).length).toBeGreaterThan(5);
    // Naive timestamps of one date with 6-digit fractions compare as strings, which the window filter above relies on.
    expect(timestamps.every((timestamp) => /^2026-06-16T\d\d:\d\d:\d\d(\.\d{6})?$/.test(timestamp!))).toBe(true);
  });
});

describe.each([1, 7, 100])('walking every page with limit %i', (limit) => {
  it.each(['TIMESTAMP', 'TIMESTAMP_DESC'] as const)('raw page_id loop, %s: every event once, in order', async (sortOrder) => {
    const { items, pages } = await walkRaw(server, MAIN, { limit, sort_order: sortOrder });
    expect(items).toEqual(searchOrder(EVENTS, sortOrder));
    expect(pages).toBe(Math.ceil(EVENTS.length / limit));
  });

  it.each(['TIMESTAMP', 'TIMESTAMP_DESC'] as const)('typed client iterateEvents, %s: every event once, in order', async (sortOrder) => {
    const items: Event[] = [];
    for await (const event of server.client.iterateEvents(MAIN, { limit, sort_order: sortOrder })) items.push(event);
    expect(items).toEqual(searchOrder(EVENTS, sortOrder));
  });
});

describe.each(FILTERS)('walking filtered pages: $name', ({ query, keep }) => {
  it.each(['TIMESTAMP', 'TIMESTAMP_DESC'] as const)('raw loop with limit 5, %s', async (sortOrder) => {
    const { items } = await walkRaw(server, MAIN, { ...query, limit: 5, sort_order: sortOrder });
    expect(items).toEqual(searchOrder(EVENTS, sortOrder).filter(keep));
  });

  it('typed client with limit 3, ascending', async () => {
    expect(await server.client.listEvents(MAIN, { ...query, limit: 3 })).toEqual(searchOrder(EVENTS).filter(keep));
  });
});

describe('paging details', () => {
  it('next_page_id is the id of the first event that did not fit', async () => {
    const ordered = searchOrder(EVENTS);
    const first = await server.statusAndBody(searchPath(MAIN, { limit: 7 }));
    expect(first).toEqual({ status: 200, body: pageBody(ordered.slice(0, 7), ordered[7]!.id) });
    const second = await server.statusAndBody(searchPath(MAIN, { limit: 7, page_id: ordered[7]!.id! }));
    expect(second).toEqual({ status: 200, body: pageBody(ordered.slice(7, 14), ordered[14]!.id) });
  });

  it('a walk that sends only limit and page_id, like RemoteEventsList, sees everything', async () => {
    const { items, pages } = await walkRaw(server, MAIN, { limit: 100 });
    expect(items).toEqual(searchOrder(EVENTS));
    expect(pages).toBe(2);
  });

  it('the default limit is 100', async () => {
    const response = await server.statusAndBody(searchPath(MAIN));
    const ordered = searchOrder(EVENTS);
    expect(response).toEqual({ status: 200, body: pageBody(ordered.slice(0, 100), ordered[100]!.id) });
  });

  it('conversations are kept apart: a cursor of one conversation restarts another', async () => {
    expect(await server.client.listEvents(OTHER, { limit: 100 })).toEqual(searchOrder(OTHER_EVENTS));
    const response = await server.statusAndBody(searchPath(OTHER, { limit: 5, page_id: EVENTS[100]!.id! }));
    const ordered = searchOrder(OTHER_EVENTS);
    expect(response).toEqual({ status: 200, body: pageBody(ordered.slice(0, 5), ordered[5]!.id) });
  });

  it('concurrent walks over the same conversation do not disturb each other', async () => {
    const walks = await Promise.all([
      walkRaw(server, MAIN, { limit: 9 }),
      walkRaw(server, MAIN, { limit: 13, sort_order: 'TIMESTAMP_DESC' }),
      walkRaw(server, MAIN, { limit: 5, kind: 'ActionEvent' }),
    ]);
    expect(walks.map((walk) => walk.items)).toEqual([
      searchOrder(EVENTS),
      searchOrder(EVENTS, 'TIMESTAMP_DESC'),
      searchOrder(EVENTS).filter((event) => event.kind === 'ActionEvent'),
    ]);
  });
});
