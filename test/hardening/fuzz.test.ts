/**
 * Hostile input, generated: raw request targets (support/hostile-requests.ts) sent byte for
 * byte (support/raw-http.ts) to the real server, each answer held to the rules in
 * support/answer-rules.ts. About 2000 cases in all; FUZZ_RUNS and FUZZ_SEED in
 * support/fuzz-runs.ts. A failure found here becomes a named row in hostile-cases.test.ts.
 */
import fc from 'fast-check';
import { unescape } from 'node:querystring';
import { generateConversation } from '../../src/fixture';
import { conversationId } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { answerProblems } from './support/answer-rules';
import { assertProperty, timeoutFor } from './support/fuzz-runs';
import { QUERY_NAMES, isWellFormedTarget, percentEncode, queryName, queryString, queryValue, searchTarget } from './support/hostile-requests';
import { type RawResponse, rawGet } from './support/raw-http';

const LONG = conversationId(1);
const SHORT = conversationId(2);
const KNOWN_IDS = [LONG, SHORT];
const KNOWN_HEX = new Set(KNOWN_IDS.map((id) => id.replaceAll('-', '')));

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer([
    { id: LONG, events: generateConversation({ events: 150, seed: 'fuzz-long', largePayloadBytes: 2000 }) },
    { id: SHORT, events: generateConversation({ events: 12, seed: 'fuzz-short' }) },
  ]);
});
afterAll(() => server.stop());

const send = (target: string): Promise<RawResponse> => rawGet(server.url, target);
const headBytes = (target: string) => target.length + 64;

function expectNoProblems(target: string, response: RawResponse): void {
  const problems = answerProblems(response, { target, headBytes: headBytes(target), knownHex: KNOWN_HEX });
  if (problems.length > 0) throw new Error(`${problems.join('; ')}\n  target: ${JSON.stringify(target.slice(0, 300))}\n  status: ${response.status}`);
}

it(
  'every hostile request to the search operation gets a contract answer: no 5xx, no hang, nothing served but a held conversation',
  async () => {
    await assertProperty(
      fc.asyncProperty(searchTarget(KNOWN_IDS), async (target) => expectNoProblems(target, await send(target))),
      0.7,
    );
    expect((await send('/alive')).status).toBe(200);
  },
  timeoutFor(0.7),
);

describe('parameters the operation does not declare change nothing, however they are written', () => {
  // Unknown names that cannot decode to a declared one, in the forms that tripped the validator.
  // A raw `#` would end the query there (a fragment), cutting off the declared pairs after it.
  const unknownName = queryName.filter(
    (name) => !name.includes('#') && !(QUERY_NAMES as readonly string[]).includes(unescape(name.replaceAll('+', ' '))),
  );
  const shortValue = queryValue.filter((value) => value.length < 200);
  const declaredPair = fc.tuple(fc.constantFrom(...QUERY_NAMES), shortValue).map(([name, value]) => `${name}=${value}`);
  const unknownPair = fc
    .tuple(
      unknownName,
      shortValue.filter((value) => !value.includes('#')),
    )
    .map(([name, value]) => `${name}=${value}`);
  const mixed = fc.tuple(
    fc.array(declaredPair, { maxLength: 4 }),
    fc.array(unknownPair, { minLength: 1, maxLength: 4 }),
    fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
  );

  it(
    'the answer with them is the answer without them',
    async () => {
      await assertProperty(
        fc.asyncProperty(fc.constantFrom(...KNOWN_IDS), mixed, async (id, [declared, unknown, at]) => {
          const interleaved = [...declared];
          for (const [i, pair] of unknown.entries()) interleaved.splice((at[i] ?? 0) % (interleaved.length + 1), 0, pair);
          const base = `/api/conversations/${id}/events/search`;
          const without = await send(`${base}?${declared.join('&')}`);
          const withUnknown = await send(`${base}?${interleaved.join('&')}`);
          expect({ status: withUnknown.status, body: withUnknown.body }).toEqual({ status: without.status, body: without.body });
        }),
        0.15,
      );
    },
    timeoutFor(0.15),
  );
});

it(
  'any other path gets JSON 404 or one of the open pages, never a 5xx and never a file from disk',
  async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        '..',
        '%2e%2e',
        '..%2F',
        '%2F',
        'etc',
        'passwd',
        'package.json',
        'docs',
        'api',
        'alive',
        'health',
        'openapi.json',
        'swagger-ui.css',
        '%00',
        '',
        '.env',
      ),
      fc.string({ unit: 'grapheme', maxLength: 6 }).map(percentEncode),
    );
    const path = fc.array(segment, { minLength: 1, maxLength: 6 }).map((segments) => `/${segments.join('/')}`);
    const target = fc.tuple(path, fc.option(queryString, { nil: undefined })).map(([p, q]) => (q === undefined ? p : `${p}?${q}`));
    await assertProperty(
      fc.asyncProperty(target, async (candidate) => {
        const response = await send(candidate);
        expect(response.status).toBeLessThan(500);
        if (response.status === 400 && !isWellFormedTarget(candidate)) return;
        if (response.status === 431 && headBytes(candidate) > 15 * 1024) return;
        // Contents of files the process could read: /etc/passwd, the project's package.json and tsconfig.json.
        expect(response.body).not.toMatch(/root:x:0:0|"name": "agent-server-contract"|"compilerOptions"/);
        // The open pages are the docs and the events viewer at `/`, told by the path the server
        // resolves: the target without its fragment and query. Express routes `//` to `/`, as it
        // takes a trailing slash on every route, and resolves no dot segment (`//..` is no page);
        // everything else answers JSON.
        const resolvedPath = candidate.split('#')[0]!.split('?')[0]!;
        const openPage = resolvedPath.startsWith('/docs') || /^\/\/?$/.test(resolvedPath);
        if (!openPage) expect(response.headers['content-type']).toMatch(/^application\/json\b/);
      }),
      0.1,
    );
  },
  timeoutFor(0.1),
);

describe('with session keys', () => {
  let keyed: LiveServer;
  beforeAll(async () => {
    keyed = await startLiveServer([{ id: SHORT, events: generateConversation({ events: 12, seed: 'fuzz-short' }) }], {
      sessionApiKeys: ['fuzz-session-key'],
    });
  });
  afterAll(() => keyed.stop());

  it(
    'every hostile /api request without the key is 401 and nothing else',
    async () => {
      await assertProperty(
        fc.asyncProperty(
          searchTarget(KNOWN_IDS),
          fc.constantFrom(undefined, '', 'wrong', 'fuzz-session-ke', 'FUZZ-SESSION-KEY'),
          async (target, key) => {
            fc.pre(target.startsWith('/api/') && isWellFormedTarget(target) && target.length < 15_000);
            const headers = key === undefined ? [] : [['X-Session-API-Key', key] as const];
            const response = await rawGet(keyed.url, target, { headers });
            expect({ status: response.status, body: response.body }).toEqual({ status: 401, body: '{"detail":"Unauthorized"}' });
          },
        ),
        0.05,
      );
    },
    timeoutFor(0.05),
  );
});
