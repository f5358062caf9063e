import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Event } from '../../src/contract';
import { generateConversation } from '../../src/fixture';
import { eventFileName } from '../../src/fixture/layout';
import { conversationId } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { type Query, searchOrder } from '../support/search-requests';

const CONVERSATION = conversationId(40);
const UNKNOWN = conversationId(41);
const EVENTS = generateConversation({ events: 150, seed: 'count-and-get' });

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }]);
});
afterAll(() => server.stop());

const countPath = (id: string, query: Query = {}) =>
  `/api/conversations/${id}/events/count?${new URLSearchParams(Object.entries(query).map(([name, value]): [string, string] => [name, String(value)]))}`;
const eventPath = (id: string, eventId: string) => `/api/conversations/${id}/events/${encodeURIComponent(eventId)}`;

describe('count', () => {
  const middle = searchOrder(EVENTS)[75]!.timestamp!;
  const filters: Array<[string, Query]> = [
    ['no filter', {}],
    ['kind', { kind: 'ActionEvent' }],
    ['kind, fully qualified', { kind: 'openhands.sdk.event.llm_convertible.observation.ObservationEvent' }],
    ['an unknown kind', { kind: 'Mystery' }],
    ['source', { source: 'agent' }],
    ['an unknown source', { source: 'hook' }],
    ['body', { body: 'the' }],
    ['timestamp__gte', { timestamp__gte: middle }],
    ['timestamp__lt', { timestamp__lt: middle }],
    ['every filter', { kind: 'MessageEvent', source: 'user', body: 'e', timestamp__gte: '2000-01-01', timestamp__lt: middle }],
  ];

  it.each(filters)('with %s equals the length of a full search walk', async (_name, query) => {
    const walked = await server.client.listEvents(CONVERSATION, query);
    const counted = await server.client.countEvents(CONVERSATION, query);

    expect(counted.ok && counted.count).toBe(walked.length);
  });

  it('with no filter counts every event, as a bare JSON integer', async () => {
    const response = await server.get(countPath(CONVERSATION));

    expect(response.status).toBe(200);
    expect(response.text).toBe(String(EVENTS.length));
  });

  it('ignores the search-only parameters', async () => {
    expect(await server.statusAndBody(countPath(CONVERSATION, { limit: 0, sort_order: 'BAD', page_id: EVENTS[3]!.id! }))).toEqual({
      status: 200,
      body: EVENTS.length,
    });
  });

  it('answers the search 404 for an unknown conversation', async () => {
    expect(await server.statusAndBody(countPath(UNKNOWN))).toEqual({ status: 404, body: { detail: `Conversation not found: ${UNKNOWN}` } });
  });

  it('validates the filters as the search does, path first then query in declaration order', async () => {
    expect(await server.statusAndBody(countPath('not-a-uuid', { timestamp__lt: 'garbage', timestamp__gte: '2024-02-30T00:00:00' }))).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'uuid_parsing',
            loc: ['path', 'conversation_id'],
            msg: 'Input should be a valid UUID, invalid character: found `n` at 0',
            input: 'not-a-uuid',
            ctx: { error: 'invalid character: found `n` at 0' },
          },
          {
            type: 'datetime_from_date_parsing',
            loc: ['query', 'timestamp__gte'],
            msg: 'Input should be a valid datetime or date, day value is outside expected range',
            input: '2024-02-30T00:00:00',
            ctx: { error: 'day value is outside expected range' },
          },
          {
            type: 'datetime_from_date_parsing',
            loc: ['query', 'timestamp__lt'],
            msg: 'Input should be a valid datetime or date, input is too short',
            input: 'garbage',
            ctx: { error: 'input is too short' },
          },
        ],
      },
    });
  });
});

describe('get by id', () => {
  it('answers every event of a walk with the stored event', async () => {
    const walked = await server.client.listEvents(CONVERSATION);
    expect(walked).toHaveLength(EVENTS.length);
    for (const event of walked) {
      const got = await server.client.getEvent(CONVERSATION, event.id!);
      expect(got.ok && got.event).toEqual(event);
    }
  });

  it('serves the stored bytes, as the search does', async () => {
    const event = EVENTS[7]!;
    const response = await server.get(eventPath(CONVERSATION, event.id!));

    expect(response.status).toBe(200);
    expect(response.text).toBe(JSON.stringify(event));
  });

  it('answers 404 Not Found for an id the conversation does not have', async () => {
    expect(await server.statusAndBody(eventPath(CONVERSATION, 'no-such-event'))).toEqual({ status: 404, body: { detail: 'Not Found' } });
    const missing = await server.client.getEvent(CONVERSATION, 'no-such-event');
    expect(missing.ok === false && [missing.error.status, missing.error.detail]).toEqual([404, 'Not Found']);
  });

  it('answers the search 404 for an unknown conversation', async () => {
    expect(await server.statusAndBody(eventPath(UNKNOWN, EVENTS[0]!.id!))).toEqual({
      status: 404,
      body: { detail: `Conversation not found: ${UNKNOWN}` },
    });
  });

  it('validates the conversation id', async () => {
    const response = await server.statusAndBody(eventPath('123', EVENTS[0]!.id!));
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ detail: [{ type: 'uuid_parsing', loc: ['path', 'conversation_id'] }] });
  });

  it('never takes search or count for an event id', async () => {
    expect((await server.get(`/api/conversations/${CONVERSATION}/events/search`)).body).toMatchObject({
      items: expect.any(Array),
      next_page_id: expect.anything(),
    });
    expect((await server.get(`/api/conversations/${CONVERSATION}/events/count`)).body).toBe(EVENTS.length);
  });

  it.each([
    ['a space and non-ASCII letters', 'évé nt 1'],
    ['a slash, percent-encoded', 'a/b'],
    ['a percent sign', '100%'],
  ])('finds an id with %s', async (_name, id) => {
    const conversation = conversationId(42);
    const event: Event = { ...EVENTS[0]!, id } as Event;
    // The id is read from the stored JSON; the file name keeps the reference layout's hex form.
    const directory = path.join(server.root, conversation.replaceAll('-', ''), 'events');
    mkdirSync(directory, { recursive: true });
    writeFileSync(path.join(directory, eventFileName(0, '00000000-0000-4000-8000-00000000abcd')), JSON.stringify(event));
    try {
      const got = await server.client.getEvent(conversation, id);
      expect(got.ok && got.event).toEqual(event);
    } finally {
      rmSync(path.join(server.root, conversation.replaceAll('-', '')), { recursive: true, force: true });
    }
  });

  it('answers 404 for a segment whose escapes do not decode', async () => {
    expect(await server.statusAndBody(`/api/conversations/${CONVERSATION}/events/%E0%A4%A`)).toEqual({ status: 404, body: { detail: 'Not Found' } });
  });
});

describe('with session keys', () => {
  let keyed: LiveServer;
  beforeAll(async () => {
    keyed = await startLiveServer([{ id: CONVERSATION, events: EVENTS.slice(0, 5) }], { sessionApiKeys: ['count-key'] });
  });
  afterAll(() => keyed.stop());

  it('count and get-by-id need the key like the search', async () => {
    expect(await keyed.statusAndBody(countPath(CONVERSATION))).toEqual({ status: 401, body: { detail: 'Unauthorized' } });
    expect(await keyed.statusAndBody(eventPath(CONVERSATION, EVENTS[0]!.id!))).toEqual({ status: 401, body: { detail: 'Unauthorized' } });
    expect(await keyed.statusAndBody(countPath(CONVERSATION), { 'X-Session-API-Key': 'count-key' })).toEqual({ status: 200, body: 5 });
    expect((await keyed.client.getEvent(CONVERSATION, EVENTS[0]!.id!)).ok).toBe(true);
  });
});
