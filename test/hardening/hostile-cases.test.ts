/**
 * Hostile requests by name, each with its whole answer: the failures the fuzz test found
 * (marked "found by fuzz", each fixed in src/server), the answers chosen where the
 * reference differs, and the malformed requests that Node's HTTP parser refuses before the
 * application sees them. docs/hardening.md explains each choice.
 */
import type { Event } from '../../src/contract';
import { generateConversation } from '../../src/fixture';
import { conversationId } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { pageBody, searchOrder } from '../support/search-requests';
import { exchange, rawGet } from './support/raw-http';

const CONVERSATION = conversationId(40);
const EVENTS: Event[] = generateConversation({ events: 12, seed: 'hostile-cases' });
const WHOLE_PAGE = pageBody(searchOrder(EVENTS));
const SEARCH = `/api/conversations/${CONVERSATION}/events/search`;
const REPLACEMENT = '\ufffd';

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }]);
});
afterAll(() => server.stop());

const uuidError = (input: string, error: string) => ({
  detail: [{ type: 'uuid_parsing', loc: ['path', 'conversation_id'], msg: `Input should be a valid UUID, ${error}`, input, ctx: { error } }],
});
const limitError = (input: string, type: string, msg: string, ctx?: Record<string, number>) => ({
  detail: [{ type, loc: ['query', 'limit'], msg, input, ...(ctx ? { ctx } : {}) }],
});
const INT_PARSING = 'Input should be a valid integer, unable to parse string as an integer';

type Want = { status: number; body: unknown };

describe('answers by the contract (200, 404, 422) to hostile but well-formed requests', () => {
  const cases: Array<[string, { target: string; want: Want }]> = [
    [
      'found by fuzz: a broken escape in the conversation id (was 500) is read as the reference reads it, U+FFFD for the bad bytes',
      {
        target: '/api/conversations/%E0%A4%A/events/search',
        want: { status: 422, body: uuidError(`${REPLACEMENT}%A`, `invalid character: found \`${REPLACEMENT}\` at 0`) },
      },
    ],
    [
      'found by fuzz: invalid UTF-8 in the conversation id (was 500)',
      {
        target: '/api/conversations/%FF%FE/events/search',
        want: { status: 422, body: uuidError(REPLACEMENT.repeat(2), `invalid character: found \`${REPLACEMENT}\` at 0`) },
      },
    ],
    [
      'found by fuzz: a lone % as the conversation id (was 500)',
      { target: '/api/conversations/%/events/search', want: { status: 422, body: uuidError('%', 'invalid character: found `%` at 0') } },
    ],
    [
      'found by fuzz: a raw # in the path (was 500): what follows is a fragment, so the path is the catalog get by ids, without its ids',
      {
        target: '/api/conversations/#%/events/search',
        want: { status: 422, body: { detail: [{ type: 'missing', loc: ['query', 'ids'], msg: 'Field required', input: null }] } },
      },
    ],
    [
      'a fragment after the search path is dropped with everything after it',
      { target: `${SEARCH}#?limit=0`, want: { status: 200, body: WHOLE_PAGE } },
    ],
    [
      "found by fuzz: //..?%20=@# (was Express's HTML 404: with the fragment, Node's url.parse finds no path); no dot segment is resolved, so it is no page",
      { target: '//..?%20=@#', want: { status: 404, body: { detail: 'Not Found' } } },
    ],
    [
      'a fragment after the query is dropped',
      { target: `${SEARCH}?limit=0#x`, want: { status: 422, body: limitError('0', 'greater_than', 'Input should be greater than 0', { gt: 0 }) } },
    ],
    [
      'found by fuzz: kind[]=x is an unknown parameter (was a 422 on kind)',
      { target: `${SEARCH}?kind[]=x`, want: { status: 200, body: WHOLE_PAGE } },
    ],
    [
      'found by fuzz: limit[a]=1 is an unknown parameter (was a 422 on limit)',
      { target: `${SEARCH}?limit[a]=1`, want: { status: 200, body: WHOLE_PAGE } },
    ],
    [
      'found by fuzz: encoded brackets, sort_order%5B%5D=BAD, are an unknown parameter too',
      { target: `${SEARCH}?sort_order%5B%5D=BAD`, want: { status: 200, body: WHOLE_PAGE } },
    ],
    [
      'prototype names are unknown parameters',
      { target: `${SEARCH}?__proto__=1&constructor[a]=1&hasOwnProperty=x&toString=`, want: { status: 200, body: WHOLE_PAGE } },
    ],
    [
      'a repeated parameter: the last value counts, even when it is empty',
      { target: `${SEARCH}?limit=1&limit=&limit`, want: { status: 422, body: limitError('', 'int_parsing', INT_PARSING) } },
    ],
    ['an encoded NUL as the kind matches nothing', { target: `${SEARCH}?kind=%00`, want: { status: 200, body: pageBody([]) } }],
    ['invalid UTF-8 as the kind matches nothing', { target: `${SEARCH}?kind=%FF%FE&source=%E0%A4%A`, want: { status: 200, body: pageBody([]) } }],
    [
      'invalid UTF-8 as the limit is echoed as the reference decodes it',
      { target: `${SEARCH}?limit=%FF%FE`, want: { status: 422, body: limitError(REPLACEMENT.repeat(2), 'int_parsing', INT_PARSING) } },
    ],
    [
      'an encoded path traversal fails UUID parsing (the reference decodes %2F before routing and answers 404)',
      {
        target: '/api/conversations/..%2F..%2Fetc%2Fpasswd/events/search',
        want: { status: 422, body: uuidError('../../etc/passwd', 'invalid character: found `.` at 0') },
      },
    ],
    [
      'a 5000-character id',
      {
        target: `/api/conversations/${'a'.repeat(5000)}/events/search`,
        want: { status: 422, body: uuidError('a'.repeat(5000), 'invalid length: found 5000') },
      },
    ],
    [
      'a Unicode id',
      {
        target: '/api/conversations/%F0%9F%98%80/events/search',
        want: { status: 422, body: uuidError('\u{1F600}', 'invalid character: found `\u{1F600}` at 0') },
      },
    ],
    ['found by differential fuzzing against pydantic: limit=5_0 is 50', { target: `${SEARCH}?limit=5_0`, want: { status: 200, body: WHOLE_PAGE } }],
    [
      'found by differential fuzzing against pydantic: limit=5. is not an integer',
      { target: `${SEARCH}?limit=5.`, want: { status: 422, body: limitError('5.', 'int_parsing', INT_PARSING) } },
    ],
    [
      'found by differential fuzzing against pydantic: U+0085 around the limit is white space',
      { target: `${SEARCH}?limit=%C2%8550%C2%85`, want: { status: 200, body: WHOLE_PAGE } },
    ],
    [
      'found by differential fuzzing against pydantic: a BOM around the limit is not white space',
      { target: `${SEARCH}?limit=%EF%BB%BF50`, want: { status: 422, body: limitError('\ufeff50', 'int_parsing', INT_PARSING) } },
    ],
    [
      'found by differential fuzzing against pydantic: more than 4300 digits is int_parsing_size',
      {
        target: `${SEARCH}?limit=${'9'.repeat(4301)}`,
        want: {
          status: 422,
          body: {
            detail: [
              {
                type: 'int_parsing_size',
                loc: ['query', 'limit'],
                msg: 'Unable to parse input string as an integer, exceeded maximum size',
                input: '9'.repeat(4301),
              },
            ],
          },
        },
      },
    ],
    [
      'found here: 4300 digits is a number too large (was 200 with no limit: past 308 digits it is Infinity, which Ajv let through)',
      {
        target: `${SEARCH}?limit=${'9'.repeat(4300)}`,
        want: { status: 422, body: limitError('9'.repeat(4300), 'less_than_equal', 'Input should be less than or equal to 100', { le: 100 }) },
      },
    ],
    [
      'minus 400 digits is a number too small',
      {
        target: `${SEARCH}?limit=-${'9'.repeat(400)}`,
        want: { status: 422, body: limitError(`-${'9'.repeat(400)}`, 'greater_than', 'Input should be greater than 0', { gt: 0 }) },
      },
    ],
    [
      'an absolute-form target is not routed (the reference would route it)',
      { target: `http://localhost${SEARCH}`, want: { status: 404, body: { detail: 'Not Found' } } },
    ],
  ];

  it.each(cases)('%s', async (_name, { target, want }) => {
    const response = await rawGet(server.url, target);
    expect({ status: response.status, body: JSON.parse(response.body) as unknown }).toEqual(want);
  });
});

describe("requests HTTP itself forbids: Node's parser answers a bare 400 before the application runs", () => {
  const cases: Array<[string, string]> = [
    ['a raw control character in the query', `${SEARCH}?kind=\x01`],
    ['a raw NUL in the path', `/api/conversations/\x00/events/search`],
    ['a raw DEL', `${SEARCH}?kind=\x7f`],
    ['raw UTF-8 bytes (é) instead of percent-escapes', `${SEARCH}?body=\xc3\xa9`],
    ['a raw tab in the path', `/api/conversations/a\tb/events/search`],
    ['a target that is not origin-form', 'api/conversations'],
  ];
  it.each(cases)('%s', async (_name, target) => {
    expect(await rawGet(server.url, target)).toEqual({ status: 400, headers: { connection: 'close' }, body: '' });
  });

  it.each([
    ['an unknown method', `FOO ${SEARCH} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['a header name with a space', `GET ${SEARCH} HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n`],
    ['an obsolete folded header line', `GET ${SEARCH} HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n`],
    [
      'both Content-Length and Transfer-Encoding (request smuggling)',
      `GET ${SEARCH} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
  ])('%s', async (_name, request) => {
    const answer = (await exchange(server.url, Buffer.from(request, 'latin1'))).toString('latin1');
    expect(answer).toBe('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
});

describe('other methods', () => {
  it.each(['POST', 'PUT', 'DELETE', 'OPTIONS', 'TRACE'])('%s on the search path is 405', async (method) => {
    const answer = (
      await exchange(server.url, Buffer.from(`${method} ${SEARCH} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`))
    ).toString();
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe('{"detail":"Method Not Allowed"}');
  });

  it('HEAD on the search path is 405 without a body, as FastAPI answers it', async () => {
    const answer = (await exchange(server.url, Buffer.from(`HEAD ${SEARCH} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`))).toString();
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe('');
  });

  it('a GET with a body that is not JSON is answered as if it had none', async () => {
    const request = `GET ${SEARCH} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n{`;
    const answer = (await exchange(server.url, Buffer.from(request))).toString();
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual(WHOLE_PAGE);
  });
});

it.each(['/api/conversations/search?page_id=%00', '/api/stored-conversations/events/search?page_id=%00', `${SEARCH}?page_id=%00`])(
  'a page id holding U+0000, which PostgreSQL text cannot hold, names nothing and starts the walk at the first page: %s (on PostgreSQL the catalog answered a 500)',
  async (target) => {
    const answer = await server.get(target);
    expect(answer.status).toBe(200);
    const first = await server.get(target.replace(/[?&]page_id=%00$/, ''));
    expect(answer.body).toEqual(first.body);
  },
);

it('after all of the above the server still answers /alive', async () => {
  expect(await server.statusAndBody('/alive')).toEqual({ status: 200, body: { status: 'ok' } });
});
