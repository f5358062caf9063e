import type { Event } from '../../src/contract';
import { action, agentError, conversationError, conversationId, eventId, message, observation, pause, stateUpdate } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { type Query, localOffsetMinutes, pageBody, searchOrder, searchPath, unixSeconds, zoned } from '../support/search-requests';

/*
 * One conversation, events in storage order. Ties: e0/e1, e2/e3, e4/e5, e8/e9. e10 is
 * stored last but is the earliest. e1, e2, e5 and e8 store no source (defaults: agent,
 * environment, user, environment). "bug" appears in messages e0 (content), e3 (reasoning),
 * e6 (extended content), and in non-message events e1 (thought), e2 (observation),
 * e7 (error detail) and e8 (state key), which the body filter must not match.
 */
const CONVERSATION = conversationId(1);
const at = (n: number, timestamp: string) => ({ id: eventId(n), timestamp });
const e0 = message({ ...at(0, '2026-06-16T05:39:48.701247'), source: 'user' }, { text: ['Please fix the flaky Bug in the parser'] });
const e1 = action(at(1, '2026-06-16T05:39:48.701247'), 'Looking for the bug in parser.py');
const e2 = observation(at(2, '2026-06-16T05:39:48.701900'), 'bug found at line 3');
const e3 = message({ ...at(3, '2026-06-16T05:39:48.701900'), source: 'agent' }, { text: ['I found it'], reasoning: 'The BUG is an off-by-one' });
const e4 = agentError({ ...at(4, '2026-06-16T05:39:49'), source: 'agent' }, 'grep exited with status 2');
const e5 = pause(at(5, '2026-06-16T05:39:49'));
const e6 = message(
  { ...at(6, '2026-06-16T05:39:50.000001'), source: 'user' },
  { text: ['Thanks!'], extended: ['<REPOSITORY_INFO>bug tracker at /issues</REPOSITORY_INFO>'] },
);
const e7 = conversationError({ ...at(7, '2026-06-16T05:39:51.5'), source: 'environment' }, 'bug in the runtime');
const e8 = stateUpdate(at(8, '2026-06-16T05:39:52'), 'bug', 'bug');
const e9 = message({ ...at(9, '2026-06-16T05:39:52'), source: 'agent' }, { text: ['Done, see the screenshots'], images: [2] });
const e10 = message({ ...at(10, '2026-06-16T05:39:48.5'), source: 'user' }, { text: ['Written late, happened early'] });
const STORED: Event[] = [e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10];
const ASCENDING = [e10, e0, e1, e2, e3, e4, e5, e6, e7, e8, e9];

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer([{ id: CONVERSATION, events: STORED }]);
});
afterAll(() => server.stop());

async function search(query: Query | string) {
  const response = await server.get(searchPath(CONVERSATION, query));
  return { status: response.status, body: response.body };
}

const cases: Array<[string, { given: Query; want: Event[] }]> = [
  ['no filter', { given: {}, want: ASCENDING }],
  ['kind, short name', { given: { kind: 'MessageEvent' }, want: [e10, e0, e3, e6, e9] }],
  ['kind, class path', { given: { kind: 'openhands.sdk.event.llm_convertible.message.MessageEvent' }, want: [e10, e0, e3, e6, e9] }],
  ['kind of a default-source kind', { given: { kind: 'ActionEvent' }, want: [e1] }],
  ['kind, class path of another module', { given: { kind: 'openhands.sdk.event.user_action.PauseEvent' }, want: [e5] }],
  ['kind that is no event kind', { given: { kind: 'NoSuchEvent' }, want: [] }],
  ['kind, class path in the wrong module', { given: { kind: 'openhands.sdk.event.message.MessageEvent' }, want: [] }],
  ['kind, case differs', { given: { kind: 'messageevent' }, want: [] }],
  ['kind present in the contract but absent here', { given: { kind: 'TokenEvent' }, want: [] }],
  ['source user, incl. a PauseEvent that stores none', { given: { source: 'user' }, want: [e10, e0, e5, e6] }],
  ['source agent, incl. an ActionEvent that stores none', { given: { source: 'agent' }, want: [e1, e3, e4, e9] }],
  ['source environment, incl. events that store none', { given: { source: 'environment' }, want: [e2, e7, e8] }],
  ['unknown source', { given: { source: 'robot' }, want: [] }],
  ['source is compared exactly', { given: { source: 'User' }, want: [] }],
  ['body: content, reasoning_content and extended_content of messages only', { given: { body: 'bug' }, want: [e0, e3, e6] }],
  ['body is case-insensitive', { given: { body: 'BuG' }, want: [e0, e3, e6] }],
  ['body across words', { given: { body: 'the flaky bug' }, want: [e0] }],
  ['body across content and reasoning, joined by one space', { given: { body: 'found it the bug' }, want: [e3] }],
  ['body in extended content only', { given: { body: 'repository_info' }, want: [e6] }],
  ['body matching an image part', { given: { body: 'screenshots [Image: 2 URLs]' }, want: [e9] }],
  ['body only in an action thought', { given: { body: 'parser.py' }, want: [] }],
  ['body only in an observation', { given: { body: 'line 3' }, want: [] }],
  ['body only in a conversation error', { given: { body: 'runtime' }, want: [] }],
  ['body nothing contains', { given: { body: 'zebra' }, want: [] }],
  [
    'gte equal to a timestamp includes it (and its tie)',
    { given: { timestamp__gte: '2026-06-16T05:39:48.701900' }, want: [e2, e3, e4, e5, e6, e7, e8, e9] },
  ],
  ['gte one microsecond later excludes it', { given: { timestamp__gte: '2026-06-16T05:39:48.701901' }, want: [e4, e5, e6, e7, e8, e9] }],
  [
    'gte between .701247 and .701900, same millisecond',
    { given: { timestamp__gte: '2026-06-16T05:39:48.7015' }, want: [e2, e3, e4, e5, e6, e7, e8, e9] },
  ],
  ['lt equal to a timestamp excludes it (and its tie)', { given: { timestamp__lt: '2026-06-16T05:39:48.701900' }, want: [e10, e0, e1] }],
  ['lt one microsecond later includes it', { given: { timestamp__lt: '2026-06-16T05:39:48.701901' }, want: [e10, e0, e1, e2, e3] }],
  [
    'fraction digits beyond 6 are truncated, not rounded (gte)',
    { given: { timestamp__gte: '2026-06-16T05:39:48.7018999' }, want: [e2, e3, e4, e5, e6, e7, e8, e9] },
  ],
  ['fraction digits beyond 6 are truncated, not rounded (lt)', { given: { timestamp__lt: '2026-06-16T05:39:48.701900999' }, want: [e10, e0, e1] }],
  [
    'gte .701247 and lt .701900: a window inside one millisecond',
    { given: { timestamp__gte: '2026-06-16T05:39:48.701247', timestamp__lt: '2026-06-16T05:39:48.701900' }, want: [e0, e1] },
  ],
  [
    'lt at a whole second vs a stored .000001',
    { given: { timestamp__gte: '2026-06-16T05:39:49', timestamp__lt: '2026-06-16T05:39:50' }, want: [e4, e5] },
  ],
  ['gte after lt: empty', { given: { timestamp__gte: '2026-06-16T05:39:50', timestamp__lt: '2026-06-16T05:39:49' }, want: [] }],
  ['a bare date as gte', { given: { timestamp__gte: '2026-06-16' }, want: ASCENDING }],
  ['a bare date as lt', { given: { timestamp__lt: '2026-06-16' }, want: [] }],
  ['a space separator', { given: { timestamp__gte: '2026-06-16 05:39:50' }, want: [e6, e7, e8, e9] }],
  ['minutes only', { given: { timestamp__lt: '2026-06-16T05:40' }, want: ASCENDING }],
  ['kind and source', { given: { kind: 'MessageEvent', source: 'user' }, want: [e10, e0, e6] }],
  ['kind and default source', { given: { kind: 'PauseEvent', source: 'user' }, want: [e5] }],
  ['kind, source and body', { given: { kind: 'MessageEvent', source: 'agent', body: 'bug' }, want: [e3] }],
  ['body with a kind that is not MessageEvent', { given: { kind: 'ActionEvent', body: 'bug' }, want: [] }],
  ['source and gte', { given: { source: 'user', timestamp__gte: '2026-06-16T05:39:49' }, want: [e5, e6] }],
  [
    'all five filters',
    {
      given: {
        kind: 'MessageEvent',
        source: 'user',
        body: 'bug',
        timestamp__gte: '2026-06-16T05:39:48.701247',
        timestamp__lt: '2026-06-16T05:39:50.000001',
      },
      want: [e0],
    },
  ],
  [
    'all five filters, window widened by one microsecond',
    {
      given: {
        kind: 'MessageEvent',
        source: 'user',
        body: 'bug',
        timestamp__gte: '2026-06-16T05:39:48.701247',
        timestamp__lt: '2026-06-16T05:39:50.000002',
      },
      want: [e0, e6],
    },
  ],
];

describe('filters, ascending', () => {
  it.each(cases)('%s', async (_name, { given, want }) => {
    expect(await search(given)).toEqual({ status: 200, body: pageBody(want) });
  });

  it('sort_order=TIMESTAMP is the default order', async () => {
    expect(await search({ sort_order: 'TIMESTAMP' })).toEqual({ status: 200, body: pageBody(ASCENDING) });
  });

  it('the order is by timestamp, storage position among ties (checked independently)', () => {
    expect(searchOrder(STORED)).toEqual(ASCENDING);
  });
});

describe('filters, TIMESTAMP_DESC: the exact reverse, ties reversed by storage position', () => {
  it.each(cases)('%s', async (_name, { given, want }) => {
    expect(await search({ ...given, sort_order: 'TIMESTAMP_DESC' })).toEqual({ status: 200, body: pageBody([...want].reverse()) });
  });
});

describe('paging a small conversation', () => {
  it('pages of 2 split ties, and each page starts at the previous next_page_id', async () => {
    const pages = [
      [{ limit: 2 }, pageBody([e10, e0], e1.id)],
      [{ limit: 2, page_id: e1.id! }, pageBody([e1, e2], e3.id)],
      [{ limit: 2, page_id: e3.id! }, pageBody([e3, e4], e5.id)],
      [{ limit: 2, page_id: e9.id! }, pageBody([e9])],
    ] as const;
    for (const [given, want] of pages) expect(await search(given)).toEqual({ status: 200, body: want });
  });

  it('descending pages split ties in reverse storage order', async () => {
    expect(await search({ limit: 3, sort_order: 'TIMESTAMP_DESC' })).toEqual({ status: 200, body: pageBody([e9, e8, e7], e6.id) });
    expect(await search({ limit: 2, sort_order: 'TIMESTAMP_DESC', page_id: e5.id! })).toEqual({ status: 200, body: pageBody([e5, e4], e3.id) });
    expect(await search({ limit: 2, sort_order: 'TIMESTAMP_DESC', page_id: e0.id! })).toEqual({ status: 200, body: pageBody([e0, e10]) });
  });

  it('a filtered page names the next match, and the filters apply from it', async () => {
    expect(await search({ kind: 'MessageEvent', limit: 2 })).toEqual({ status: 200, body: pageBody([e10, e0], e3.id) });
    expect(await search({ kind: 'MessageEvent', limit: 2, page_id: e3.id! })).toEqual({ status: 200, body: pageBody([e3, e6], e9.id) });
    expect(await search({ source: 'environment', sort_order: 'TIMESTAMP_DESC', limit: 2 })).toEqual({ status: 200, body: pageBody([e8, e7], e2.id) });
  });

  it('a page that ends at the last match has next_page_id null', async () => {
    expect(await search({ limit: 11 })).toEqual({ status: 200, body: pageBody(ASCENDING) });
    expect(await search({ kind: 'MessageEvent', limit: 5 })).toEqual({ status: 200, body: pageBody([e10, e0, e3, e6, e9]) });
  });

  it.each([
    ['ascending', {}, [e10, e0], e1.id],
    ['descending', { sort_order: 'TIMESTAMP_DESC' }, [e9, e8], e7.id],
    ['filtered', { source: 'user' }, [e10, e0], e5.id],
  ])('an unknown page_id restarts from the first event of the order: %s', async (_name, query, want, next) => {
    for (const pageId of [eventId(999), 'not-an-event', '']) {
      expect(await search({ ...query, limit: 2, page_id: pageId })).toEqual({ status: 200, body: pageBody(want, next) });
    }
  });
});

describe('zoned and naive filter values', () => {
  // Stored timestamps are naive local time, so a filter with a zone names the same instant
  // as the naive value only through the process's own UTC offset.
  const boundary = '2026-06-16T05:39:48.701900';
  const offset = localOffsetMinutes(boundary);

  it.each([
    ['the process offset', offset],
    ['+05:00', 300],
    ['-03:30', -210],
    ['+00:00', 0],
  ])('a value with %s selects what the naive local value selects, to the microsecond', async (_name, minutes) => {
    const value = zoned(boundary, minutes);
    expect(await search({ timestamp__gte: value })).toEqual({ status: 200, body: pageBody([e2, e3, e4, e5, e6, e7, e8, e9]) });
    expect(await search({ timestamp__lt: value })).toEqual({ status: 200, body: pageBody([e10, e0, e1]) });
    expect(await search({ timestamp__gte: zoned('2026-06-16T05:39:48.701899', minutes) })).toEqual({
      status: 200,
      body: pageBody([e2, e3, e4, e5, e6, e7, e8, e9]),
    });
  });

  (offset === 0 ? it : it.skip)('with the process at UTC, Z names the naive value itself', async () => {
    expect(await search({ timestamp__gte: '2026-06-16T05:39:48.701900Z', timestamp__lt: '2026-06-16T05:39:49Z' })).toEqual({
      status: 200,
      body: pageBody([e2, e3]),
    });
    expect(await search(`timestamp__lt=2026-06-16T05:39:48.701900Z`)).toEqual({ status: 200, body: pageBody([e10, e0, e1]) });
  });

  it('Z names the instant in UTC whatever the process offset is', async () => {
    expect(await search({ timestamp__gte: zoned(boundary, 0, true) })).toEqual({ status: 200, body: pageBody([e2, e3, e4, e5, e6, e7, e8, e9]) });
  });

  it('unix seconds name an instant', async () => {
    const seconds = unixSeconds('2026-06-16T05:39:52');
    expect(await search({ timestamp__gte: seconds })).toEqual({ status: 200, body: pageBody([e8, e9]) });
    expect(await search({ timestamp__lt: seconds })).toEqual({ status: 200, body: pageBody([e10, e0, e1, e2, e3, e4, e5, e6, e7]) });
  });

  it('an unencoded colon is read as sent (curl does not encode it)', async () => {
    expect(await search('timestamp__gte=2026-06-16T05:39:50&timestamp__lt=2026-06-16T05:39:52')).toEqual({ status: 200, body: pageBody([e6, e7]) });
  });
});
