import * as timestamps from '../../src/search/timestamps';
import * as uuid from '../../src/request-value/uuid';
import { conversationId, eventId, message } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';

/*
 * Each id and timestamp of a request is read once on the server's request path: the
 * validator's check, the handler and the 422's message share one reading
 * (src/server/parsed-values.ts). Counted on the real server over HTTP, by value, so reads
 * of stored events' timestamps while the conversation loads are not mistaken for them.
 */
const CONVERSATION = conversationId(31);
const GTE = '2026-06-16T05:40:00Z';
const LT = '2026-06-16 05:41:00';

let server: LiveServer;
let uuidReads: jest.SpyInstance;
let timestampReads: jest.SpyInstance;

beforeAll(async () => {
  server = await startLiveServer([
    { id: CONVERSATION, events: [message({ id: eventId(1), timestamp: '2026-06-16T05:40:30.000000', source: 'user' }, { text: ['hello'] })] },
  ]);
  // The conversation is loaded before counting starts.
  expect((await server.get(`/api/conversations/${CONVERSATION}/events/search`)).status).toBe(200);
  uuidReads = jest.spyOn(uuid, 'parseUuid');
  timestampReads = jest.spyOn(timestamps, 'parseFilterTimestamp');
});
afterAll(async () => {
  jest.restoreAllMocks();
  await server.stop();
});
beforeEach(() => jest.clearAllMocks());

const readsOf = (spy: jest.SpyInstance, value: string) => spy.mock.calls.filter(([argument]) => argument === value).length;

it('reads the conversation id and both timestamps of a search once each', async () => {
  const response = await server.get(`/api/conversations/${CONVERSATION}/events/search?timestamp__gte=${GTE}&timestamp__lt=${LT}`);

  expect(response.status).toBe(200);
  expect((response.body as { items: unknown[] }).items).toHaveLength(1);
  expect([readsOf(uuidReads, CONVERSATION), readsOf(timestampReads, GTE), readsOf(timestampReads, LT)]).toEqual([1, 1, 1]);
});

it('reads the conversation id once for a count and for get-by-id', async () => {
  expect((await server.get(`/api/conversations/${CONVERSATION}/events/count?timestamp__gte=${GTE}`)).body).toBe(1);
  expect((await server.get(`/api/conversations/${CONVERSATION}/events/${eventId(1)}`)).status).toBe(200);

  expect([readsOf(uuidReads, CONVERSATION), readsOf(timestampReads, GTE)]).toEqual([2, 1]);
});

it('reads a bad timestamp once and still names it beside the validator’s own failures, in declaration order', async () => {
  const response = await server.get(`/api/conversations/${CONVERSATION}/events/search?limit=0&timestamp__lt=tomorrow&timestamp__gte=${GTE}`);

  expect(response.status).toBe(422);
  expect((response.body as { detail: { loc: string[]; type: string }[] }).detail.map(({ loc, type }) => [loc.join('.'), type])).toEqual([
    ['query.limit', 'greater_than'],
    ['query.timestamp__lt', 'datetime_from_date_parsing'],
  ]);
  expect([readsOf(timestampReads, 'tomorrow'), readsOf(timestampReads, GTE)]).toEqual([1, 1]);
});
