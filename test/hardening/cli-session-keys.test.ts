/**
 * Session keys through the real CLI, from every source it reads (docs/reference-behaviour.md, "Server and session keys"):
 * `SESSION_API_KEY`, `OH_SESSION_API_KEYS_0/1` and repeated `--session-api-key` flags, all
 * at once. With keys, `/api/*` needs `X-Session-API-Key` and nothing else does; no key,
 * right or wrong, is ever printed. Without keys on a non-loopback host, the CLI warns.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AgentServerError, createAgentServerClient } from '../../src/client';
import { generateConversation, writeConversation } from '../../src/fixture';
import { type ServerProcess, startServerProcess } from '../../dev/soak/server-process';
import { conversationId } from '../support/events';
import { searchOrder } from '../support/search-requests';

const CONVERSATION = conversationId(80);
const EVENTS = generateConversation({ events: 30, seed: 'cli-session-keys' });
const KEYS = {
  SESSION_API_KEY: 'env-session-key-0c1d',
  OH_SESSION_API_KEYS_0: 'oh-indexed-key-zero-7f3a',
  OH_SESSION_API_KEYS_1: 'oh-indexed-key-one-91be',
};
const FLAG_KEYS = ['flag-key-first-55aa', 'flag-key-second-66bb'];
const ALL_KEYS = [...Object.values(KEYS), ...FLAG_KEYS];
const WRONG_KEYS = ['sk-wrong-0123456789abcdef', 'env-session-key-0c1', ` ${KEYS.SESSION_API_KEY}x`];
const UNAUTHORIZED = { status: 401, body: { detail: 'Unauthorized' } };

let root: string;
let keyed: ServerProcess;
let open: ServerProcess;
beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'hardening-keys-'));
  writeConversation(root, CONVERSATION, EVENTS);
  [keyed, open] = await Promise.all([
    startServerProcess({ conversationsPath: root, env: KEYS, args: FLAG_KEYS.flatMap((key) => ['--session-api-key', key]) }),
    startServerProcess({ conversationsPath: root, host: '0.0.0.0' }),
  ]);
});
afterAll(async () => {
  await Promise.all([keyed?.stop(), open?.stop()]);
  rmSync(root, { recursive: true, force: true });
});

async function statusAndBody(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return {
    status: response.status,
    body: response.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as unknown) : text.slice(0, 40),
  };
}
const searchUrl = (server: ServerProcess, query = 'limit=3') => `${server.url}/api/conversations/${CONVERSATION}/events/search?${query}`;
const firstPage = () => ({ status: 200, body: { items: searchOrder(EVENTS).slice(0, 3), next_page_id: searchOrder(EVENTS)[3]!.id } });

describe('keys from SESSION_API_KEY, OH_SESSION_API_KEYS_0/1 and two --session-api-key flags', () => {
  it.each(ALL_KEYS)('%s opens /api', async (key) => {
    expect(await statusAndBody(searchUrl(keyed), { 'X-Session-API-Key': key })).toEqual(firstPage());
  });

  const refused: Array<[string, Record<string, string>]> = [
    ['no header', {}],
    ...WRONG_KEYS.map((key): [string, Record<string, string>] => [`wrong key ${JSON.stringify(key)}`, { 'X-Session-API-Key': key }]),
    ['a right key in Authorization instead', { Authorization: `Bearer ${KEYS.SESSION_API_KEY}` }],
  ];
  it.each(refused)('/api with %s: 401 {"detail":"Unauthorized"}', async (_name, headers) => {
    expect(await statusAndBody(searchUrl(keyed), headers)).toEqual(UNAUTHORIZED);
    expect(await statusAndBody(searchUrl(keyed, 'limit=0'), headers)).toEqual(UNAUTHORIZED);
    expect(await statusAndBody(`${keyed.url}/api/conversations/not-a-uuid/events/search`, headers)).toEqual(UNAUTHORIZED);
  });

  it('/alive, /health, /openapi.json and /docs stay open without a key', async () => {
    const document = JSON.parse(readFileSync(path.join(__dirname, '../../generated/openapi.json'), 'utf8')) as unknown;
    expect(await statusAndBody(`${keyed.url}/alive`)).toEqual({ status: 200, body: { status: 'ok' } });
    expect((await statusAndBody(`${keyed.url}/health`)).status).toBe(200);
    expect(await statusAndBody(`${keyed.url}/openapi.json`)).toEqual({ status: 200, body: document });
    const docs = await fetch(`${keyed.url}/docs/`);
    expect({ status: docs.status, title: /<title>([^<]*)<\/title>/.exec(await docs.text())?.[1] }).toEqual({ status: 200, title: 'Agent Server' });
  });

  it('the typed client pages through everything with sessionApiKey, and gets a 401 error without it', async () => {
    const client = createAgentServerClient({ baseUrl: keyed.url, sessionApiKey: KEYS.OH_SESSION_API_KEYS_1 });
    expect(await client.listEvents(CONVERSATION, { limit: 7 })).toEqual(searchOrder(EVENTS));
    const result = await createAgentServerClient({ baseUrl: keyed.url }).searchEvents(CONVERSATION);
    expect(
      result.ok ? 'ok' : { status: result.error.status, detail: result.error.detail, isError: result.error instanceof AgentServerError },
    ).toEqual({
      status: 401,
      detail: 'Unauthorized',
      isError: true,
    });
  });

  it('no key, right or wrong, appears in anything the server printed', () => {
    const printed = [...keyed.stdout, ...keyed.stderr].join('\n');
    for (const key of [...ALL_KEYS, ...WRONG_KEYS.map((key) => key.trim())]) expect(printed).not.toContain(key);
    expect(printed).not.toContain('no session API key is set');
  });
});

it('without keys on 0.0.0.0 the CLI warns, on stderr, that anyone who can reach the port can read every conversation', async () => {
  expect(await statusAndBody(searchUrl(open))).toEqual(firstPage());
  const warnings = open.stderr.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['level'] === 'warn');
  expect(warnings).toEqual([
    expect.objectContaining({
      message: 'no session API key is set and the server listens beyond loopback: anyone who can reach the port can read every conversation',
      host: '0.0.0.0',
      fix: 'set SESSION_API_KEY or pass --session-api-key',
    }),
  ]);
});
