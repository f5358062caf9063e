import type { Event, ValidationError } from '../../src/contract';
import { action, conversationId, eventId, message, observation, pause } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { pageBody, searchPath } from '../support/search-requests';

/*
 * What the reference accepts and how it refuses (docs/reference-behaviour.md, "Accepted values and errors"): every row with
 * its exact pydantic `type`, `loc`, `msg`, `input` and `ctx`, asserted as whole bodies.
 */
const CONVERSATION = conversationId(20);
const HEX = CONVERSATION.replaceAll('-', '');
const MISSING = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const at = (n: number, second: number) => ({ id: eventId(n), timestamp: `2026-06-16T05:40:${String(second).padStart(2, '0')}.250000` });
const EVENTS: Event[] = [
  message({ ...at(1, 1), source: 'user' }, { text: ['Start'] }),
  action(at(2, 2)),
  observation(at(3, 3)),
  message({ ...at(4, 4), source: 'agent' }, { text: ['Working on it'] }),
  pause(at(5, 5)),
  message({ ...at(6, 6), source: 'user' }, { text: ['Go on'] }),
];
const MESSAGES = EVENTS.filter((event) => event.kind === 'MessageEvent');

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }]);
});
afterAll(() => server.stop());

const search = (conversation: string, query = '') =>
  server.statusAndBody(`/api/conversations/${conversation}/events/search${query === '' ? '' : `?${query}`}`);
const limitError = (input: string, type: string, msg: string, ctx?: Record<string, unknown>): ValidationError => ({
  type,
  loc: ['query', 'limit'],
  msg,
  input,
  ...(ctx ? { ctx } : {}),
});
const INT_PARSING = 'Input should be a valid integer, unable to parse string as an integer';
const ENUM_MSG = "Input should be 'TIMESTAMP' or 'TIMESTAMP_DESC'";
const ENUM_CTX = { expected: "'TIMESTAMP' or 'TIMESTAMP_DESC'" };
const timestampError = (name: string, input: string, error: string): ValidationError => ({
  type: 'datetime_from_date_parsing',
  loc: ['query', name],
  msg: `Input should be a valid datetime or date, ${error}`,
  input,
  ctx: { error },
});

describe("422: one row of the reference's table of refused values each", () => {
  const cases: Array<[string, { given: { conversation: string; query: string }; want: ValidationError }]> = [
    [
      'conversation_id not-a-uuid',
      {
        given: { conversation: 'not-a-uuid', query: '' },
        want: {
          type: 'uuid_parsing',
          loc: ['path', 'conversation_id'],
          msg: 'Input should be a valid UUID, invalid character: found `n` at 0',
          input: 'not-a-uuid',
          ctx: { error: 'invalid character: found `n` at 0' },
        },
      },
    ],
    [
      'conversation_id 123',
      {
        given: { conversation: '123', query: '' },
        want: {
          type: 'uuid_parsing',
          loc: ['path', 'conversation_id'],
          msg: 'Input should be a valid UUID, invalid length: found 3',
          input: '123',
          ctx: { error: 'invalid length: found 3' },
        },
      },
    ],
    [
      'conversation_id percent-decoded before it is read',
      {
        given: { conversation: 'abc%20def', query: '' },
        want: {
          type: 'uuid_parsing',
          loc: ['path', 'conversation_id'],
          msg: 'Input should be a valid UUID, invalid character: found ` ` at 3',
          input: 'abc def',
          ctx: { error: 'invalid character: found ` ` at 3' },
        },
      },
    ],
    [
      'limit 0',
      { given: { conversation: CONVERSATION, query: 'limit=0' }, want: limitError('0', 'greater_than', 'Input should be greater than 0', { gt: 0 }) },
    ],
    [
      'limit -1',
      {
        given: { conversation: CONVERSATION, query: 'limit=-1' },
        want: limitError('-1', 'greater_than', 'Input should be greater than 0', { gt: 0 }),
      },
    ],
    [
      'limit 101',
      {
        given: { conversation: CONVERSATION, query: 'limit=101' },
        want: limitError('101', 'less_than_equal', 'Input should be less than or equal to 100', { le: 100 }),
      },
    ],
    ['limit abc', { given: { conversation: CONVERSATION, query: 'limit=abc' }, want: limitError('abc', 'int_parsing', INT_PARSING) }],
    ['limit 1.5', { given: { conversation: CONVERSATION, query: 'limit=1.5' }, want: limitError('1.5', 'int_parsing', INT_PARSING) }],
    ['limit 1e2', { given: { conversation: CONVERSATION, query: 'limit=1e2' }, want: limitError('1e2', 'int_parsing', INT_PARSING) }],
    ['limit empty', { given: { conversation: CONVERSATION, query: 'limit=' }, want: limitError('', 'int_parsing', INT_PARSING) }],
    [
      'limit 0x10 (Ajv would coerce it, pydantic does not)',
      { given: { conversation: CONVERSATION, query: 'limit=0x10' }, want: limitError('0x10', 'int_parsing', INT_PARSING) },
    ],
    [
      'sort_order BAD',
      {
        given: { conversation: CONVERSATION, query: 'sort_order=BAD' },
        want: { type: 'enum', loc: ['query', 'sort_order'], msg: ENUM_MSG, input: 'BAD', ctx: ENUM_CTX },
      },
    ],
    [
      'sort_order timestamp',
      {
        given: { conversation: CONVERSATION, query: 'sort_order=timestamp' },
        want: { type: 'enum', loc: ['query', 'sort_order'], msg: ENUM_MSG, input: 'timestamp', ctx: ENUM_CTX },
      },
    ],
    [
      'sort_order empty',
      {
        given: { conversation: CONVERSATION, query: 'sort_order=' },
        want: { type: 'enum', loc: ['query', 'sort_order'], msg: ENUM_MSG, input: '', ctx: ENUM_CTX },
      },
    ],
    [
      'timestamp__gte garbage',
      {
        given: { conversation: CONVERSATION, query: 'timestamp__gte=garbage' },
        want: timestampError('timestamp__gte', 'garbage', 'input is too short'),
      },
    ],
    [
      'timestamp__gte empty',
      { given: { conversation: CONVERSATION, query: 'timestamp__gte=' }, want: timestampError('timestamp__gte', '', 'input is too short') },
    ],
    [
      'timestamp__gte 2024-02-30T00:00:00',
      {
        given: { conversation: CONVERSATION, query: 'timestamp__gte=2024-02-30T00:00:00' },
        want: timestampError('timestamp__gte', '2024-02-30T00:00:00', 'day value is outside expected range'),
      },
    ],
    [
      'timestamp__gte month 13',
      {
        given: { conversation: CONVERSATION, query: 'timestamp__gte=2024-13-01' },
        want: timestampError('timestamp__gte', '2024-13-01', 'month value is outside expected range of 1-12'),
      },
    ],
    [
      'timestamp__gte with a bad time after a valid date',
      {
        given: { conversation: CONVERSATION, query: 'timestamp__gte=2024-01-01T25:00:00' },
        want: timestampError('timestamp__gte', '2024-01-01T25:00:00', 'unexpected extra characters at the end of the input'),
      },
    ],
    [
      'timestamp__lt garbage',
      {
        given: { conversation: CONVERSATION, query: 'timestamp__lt=garbage' },
        want: timestampError('timestamp__lt', 'garbage', 'input is too short'),
      },
    ],
    [
      'timestamp__lt empty',
      { given: { conversation: CONVERSATION, query: 'timestamp__lt=' }, want: timestampError('timestamp__lt', '', 'input is too short') },
    ],
    [
      'timestamp__lt 2024-02-30T00:00:00',
      {
        given: { conversation: CONVERSATION, query: 'timestamp__lt=2024-02-30T00:00:00' },
        want: timestampError('timestamp__lt', '2024-02-30T00:00:00', 'day value is outside expected range'),
      },
    ],
    [
      'a conversation_id that looks like a secret is not echoed',
      {
        given: { conversation: 'sk-abcdefghijklmnop', query: '' },
        want: {
          type: 'uuid_parsing',
          loc: ['path', 'conversation_id'],
          msg: 'Input should be a valid UUID, invalid character: found `s` at 0',
          ctx: { error: 'invalid character: found `s` at 0' },
        },
      },
    ],
  ];
  it.each(cases)('%s', async (_name, { given, want }) => {
    expect(await search(given.conversation, given.query)).toEqual({ status: 422, body: { detail: [want] } });
  });

  it('several invalid parameters: one item each, path first, then query parameters in declaration order', async () => {
    const response = search('123', 'timestamp__lt=garbage&sort_order=BAD&foo=1&limit=0&timestamp__gte=2024-02-30T00:00:00&limit=abc');
    expect(await response).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'uuid_parsing',
            loc: ['path', 'conversation_id'],
            msg: 'Input should be a valid UUID, invalid length: found 3',
            input: '123',
            ctx: { error: 'invalid length: found 3' },
          },
          limitError('abc', 'int_parsing', INT_PARSING),
          { type: 'enum', loc: ['query', 'sort_order'], msg: ENUM_MSG, input: 'BAD', ctx: ENUM_CTX },
          timestampError('timestamp__gte', '2024-02-30T00:00:00', 'day value is outside expected range'),
          timestampError('timestamp__lt', 'garbage', 'input is too short'),
        ],
      },
    });
  });

  it('validation comes before the existence check: an unknown conversation with a bad limit is a 422', async () => {
    expect(await search(MISSING, 'limit=0')).toEqual({
      status: 422,
      body: { detail: [limitError('0', 'greater_than', 'Input should be greater than 0', { gt: 0 })] },
    });
  });
});

describe('accepted values (docs/reference-behaviour.md, "Accepted values and errors")', () => {
  it.each([
    ['hyphenated', CONVERSATION],
    ['32 hex digits', HEX],
    ['upper case', CONVERSATION.toUpperCase()],
    ['upper-case 32 hex digits', HEX.toUpperCase()],
    ['braces', `{${CONVERSATION}}`],
    ['urn:uuid: prefix', `urn:uuid:${CONVERSATION}`],
  ])('conversation_id, %s', async (_name, given) => {
    expect(await search(given)).toEqual({ status: 200, body: pageBody(EVENTS) });
  });

  it.each([
    ['" 5" is 5', 'limit=%205', pageBody(EVENTS.slice(0, 5), EVENTS[5]!.id)],
    ['"100.0" is 100', 'limit=100.0', pageBody(EVENTS)],
    ['"2.0" is 2', 'limit=2.0', pageBody(EVENTS.slice(0, 2), EVENTS[2]!.id)],
    ['"1" is the smallest', 'limit=1', pageBody(EVENTS.slice(0, 1), EVENTS[1]!.id)],
    ['"100" is the largest', 'limit=100', pageBody(EVENTS)],
  ])('limit %s', async (_name, query, want) => {
    expect(await search(CONVERSATION, query)).toEqual({ status: 200, body: want });
  });

  it.each([
    ['a bare date', '2024-01-01'],
    ['hours and minutes', '2024-01-01T00:00'],
    ['a space separator', '2024-01-01%2000:00:00'],
    ['naive with microseconds', '2024-01-01T00:00:00.123456'],
    ['Z', '2024-01-01T00:00:00Z'],
    ['+05:00', '2024-01-01T00:00:00%2B05:00'],
    ['unix seconds', '1700000000'],
  ])('timestamp filter value: %s, read as an instant before every event', async (_name, value) => {
    expect(await search(CONVERSATION, `timestamp__gte=${value}`)).toEqual({ status: 200, body: pageBody(EVENTS) });
    expect(await search(CONVERSATION, `timestamp__lt=${value}`)).toEqual({ status: 200, body: pageBody([]) });
  });

  it('unknown query parameters are ignored, including a differently-cased known name', async () => {
    expect(await search(CONVERSATION, 'foo=bar&limit=2&Limit=0&LIMIT=abc&page=3')).toEqual({
      status: 200,
      body: pageBody(EVENTS.slice(0, 2), EVENTS[2]!.id),
    });
  });

  it('an unencoded colon in a value is accepted', async () => {
    expect(await search(CONVERSATION, 'timestamp__gte=2026-06-16T05:40:04.250000&timestamp__lt=2026-06-16T05:40:06')).toEqual({
      status: 200,
      body: pageBody(EVENTS.slice(3, 5)),
    });
  });

  it.each([
    ['kind= matches nothing', 'kind=', pageBody([])],
    ['source= matches nothing', 'source=', pageBody([])],
    ['body= keeps every message event and nothing else', 'body=', pageBody(MESSAGES)],
    ['page_id= starts from the first event', 'page_id=&limit=1', pageBody(EVENTS.slice(0, 1), EVENTS[1]!.id)],
  ])('empty values are values: %s', async (_name, query, want) => {
    expect(await search(CONVERSATION, query)).toEqual({ status: 200, body: want });
  });
});

describe('repeated parameters: the last value wins', () => {
  it.each([
    ['limit 5 then 1', 'limit=5&limit=1', { status: 200, body: pageBody(EVENTS.slice(0, 1), EVENTS[1]!.id) }],
    ['an invalid limit then a valid one', 'limit=0&limit=2', { status: 200, body: pageBody(EVENTS.slice(0, 2), EVENTS[2]!.id) }],
    [
      'a valid limit then an invalid one',
      'limit=2&limit=0',
      { status: 422, body: { detail: [limitError('0', 'greater_than', 'Input should be greater than 0', { gt: 0 })] } },
    ],
    ['sort_order DESC then ASC', 'sort_order=TIMESTAMP_DESC&sort_order=TIMESTAMP', { status: 200, body: pageBody(EVENTS) }],
    ['kind PauseEvent then MessageEvent', 'kind=PauseEvent&kind=MessageEvent', { status: 200, body: pageBody(MESSAGES) }],
    [
      'page_id twice',
      `limit=1&page_id=${EVENTS[1]!.id}&page_id=${EVENTS[4]!.id}`,
      { status: 200, body: pageBody(EVENTS.slice(4, 5), EVENTS[5]!.id) },
    ],
  ])('%s', async (_name, query, want) => {
    expect(await search(CONVERSATION, query)).toEqual(want);
  });
});

describe('404', () => {
  const notFound = { status: 404, body: { detail: `Conversation not found: ${MISSING}` } };
  const hex = MISSING.replaceAll('-', '');
  it.each([
    ['hyphenated', MISSING],
    ['32 hex digits', hex],
    ['upper case', MISSING.toUpperCase()],
    ['upper-case 32 hex digits', hex.toUpperCase()],
    ['braces', `{${MISSING}}`],
    ['braces, percent-encoded', `%7B${MISSING}%7D`],
    ['urn:uuid: prefix', `urn:uuid:${MISSING}`],
  ])('names the hyphenated lower-case id when the request used the %s form', async (_name, given) => {
    expect(await search(given)).toEqual(notFound);
    expect(await search(given, 'limit=5&kind=MessageEvent')).toEqual(notFound);
  });

  it('a path outside the API is a plain 404', async () => {
    expect(await server.statusAndBody('/api/nothing-here')).toEqual({ status: 404, body: { detail: 'Not Found' } });
    expect(await server.statusAndBody(`/api/conversations/${CONVERSATION}/events/search/more`)).toEqual({
      status: 404,
      body: { detail: 'Not Found' },
    });
    expect(await server.statusAndBody('/nothing-here')).toEqual({ status: 404, body: { detail: 'Not Found' } });
  });

  // Express matches routes case-insensitively by default, while the validator only checked
  // `/api/`: `/API/...` used to reach the search unvalidated (limit ignored, a bad id a 500).
  it.each([
    ['/API/...', `/API/conversations/${CONVERSATION}/events/search?limit=1`],
    ['/Api/... with an invalid id', '/Api/conversations/not-a-uuid/events/search'],
    ['/api/Conversations/...', `/api/Conversations/${CONVERSATION}/events/search?limit=1`],
    ['.../EVENTS/search', `/api/conversations/${CONVERSATION}/EVENTS/search?limit=0`],
    ['/ALIVE', '/ALIVE'],
  ])('paths are case-sensitive, as in the reference: %s is a plain 404', async (_name, given) => {
    expect(await server.statusAndBody(given)).toEqual({ status: 404, body: { detail: 'Not Found' } });
  });

  it('another method on the search path is a 405', async () => {
    const response = await fetch(`${server.url}${searchPath(CONVERSATION)}`, { method: 'POST' });
    expect({ status: response.status, body: await response.json() }).toEqual({ status: 405, body: { detail: 'Method Not Allowed' } });
  });

  // RFC 9110 requires a 405 to list the resource's methods in `Allow` (Schemathesis' unsupported_method check found it missing).
  it.each([
    ['PATCH', `/api/conversations/${CONVERSATION}/events/search`],
    ['DELETE', `/api/conversations/${CONVERSATION}/events/count`],
    ['PUT', `/api/conversations/${CONVERSATION}/events/${eventId(1)}`],
    ['OPTIONS', '/api/stored-conversations'],
  ])('%s %s is a 405 whose Allow header names GET, the one method the contract has there', async (method, given) => {
    const response = await fetch(`${server.url}${given}`, { method });
    expect({ status: response.status, allow: response.headers.get('allow') }).toEqual({ status: 405, allow: 'GET' });
  });
});
