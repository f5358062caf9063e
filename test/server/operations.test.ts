import { readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { generateConversation } from '../../src/fixture';
import { conversationId } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { pageBody, searchOrder, searchPath } from '../support/search-requests';

const CONVERSATION = conversationId(30);
const SECOND = conversationId(31);
const EVENTS = generateConversation({ events: 60, seed: 'operations' });
const SECOND_EVENTS = generateConversation({ events: 12, seed: 'operations-second' });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('/alive, /health, /openapi.json and /docs', () => {
  let server: LiveServer;
  beforeAll(async () => {
    server = await startLiveServer([
      { id: CONVERSATION, events: EVENTS },
      { id: SECOND, events: SECOND_EVENTS },
    ]);
  });
  afterAll(() => server.stop());

  it('/alive answers ok', async () => {
    expect(await server.statusAndBody('/alive')).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('/health counts the conversations and events the index holds', async () => {
    // A request for one conversation has it indexed before the answer; the first pass indexes the rest.
    expect((await server.get(searchPath(CONVERSATION, { limit: 1 }))).status).toBe(200);
    expect(await server.statusAndBody('/health')).toMatchObject({
      status: 200,
      body: {
        status: 'ok',
        events_skipped_invalid: 0,
        bytes_held: expect.any(Number),
        memory_budget_bytes: null,
        conversations_dropped: 0,
        decode_worker_bytes: 0,
      },
    });
    expect((await server.get('/api/stored-conversations')).status).toBe(200);
    const indexed = await server.statusAndBody('/health');
    expect(indexed).toMatchObject({
      status: 200,
      body: {
        status: 'ok',
        conversations_loaded: 2,
        events_loaded: 72,
        events_skipped_invalid: 0,
        conversations_dropped: 0,
        stored_events: expect.objectContaining({ served_as_stored: 72, broken_files: 0 }),
      },
    });
    // What the index of two conversations holds: at least their events' bytes.
    expect((indexed.body as { bytes_held: number }).bytes_held).toBeGreaterThan(72 * 100);
  });

  it('/openapi.json serves the generated contract document', async () => {
    const document = JSON.parse(readFileSync(path.join(__dirname, '../../generated/openapi.json'), 'utf8')) as unknown;
    expect(await server.statusAndBody('/openapi.json')).toEqual({ status: 200, body: document });
  });

  it('/docs serves the Swagger UI page', async () => {
    const response = await fetch(`${server.url}/docs`);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain('<title>Agent Server</title>');
    expect(html).toContain('swagger-ui');
  });

  it('a page is served with a JSON content type and no X-Powered-By', async () => {
    const response = await fetch(`${server.url}${searchPath(SECOND)}`);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-powered-by')).toBeNull();
    expect(await response.json()).toEqual(pageBody(searchOrder(SECOND_EVENTS)));
  });
});

describe('500: an unexpected fault carries a correlation id that is in the logs', () => {
  function errorLines(server: LiveServer): Record<string, unknown>[] {
    return server.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['level'] === 'error');
  }

  it('the conversations directory vanished before the first request', async () => {
    const server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }]);
    try {
      rmSync(server.root, { recursive: true, force: true });
      const response = await server.statusAndBody(searchPath(CONVERSATION));
      expect(response).toEqual({ status: 500, body: { detail: 'Internal Server Error', correlation_id: expect.stringMatching(UUID) } });
      const correlationId = (response.body as { correlation_id: string }).correlation_id;
      const lines = errorLines(server);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        message: 'request failed',
        correlation_id: correlationId,
        method: 'GET',
        path: searchPath(CONVERSATION),
        error: expect.stringContaining(server.root),
      });
      expect(await server.statusAndBody('/alive')).toEqual({ status: 200, body: { status: 'ok' } });
    } finally {
      await server.stop();
    }
  });

  it('the conversations directory became a symbolic-link loop while the server ran; every fault gets its own id', async () => {
    const server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }]);
    try {
      expect((await server.get(searchPath(SECOND))).status).toBe(404);
      rmSync(server.root, { recursive: true, force: true });
      symlinkSync(server.root, server.root);
      const first = await server.statusAndBody(searchPath(SECOND));
      const second = await server.statusAndBody(searchPath(SECOND, { limit: 3 }));
      for (const response of [first, second]) {
        expect(response).toEqual({ status: 500, body: { detail: 'Internal Server Error', correlation_id: expect.stringMatching(UUID) } });
      }
      const ids = [first, second].map((response) => (response.body as { correlation_id: string }).correlation_id);
      expect(ids[0]).not.toBe(ids[1]);
      expect(errorLines(server).map((line) => line['correlation_id'])).toEqual(ids);
    } finally {
      await server.stop();
    }
  });
});

describe('session keys', () => {
  const KEYS = ['first-session-key', 'second-session-key'];
  let server: LiveServer;
  beforeAll(async () => {
    server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }], { sessionApiKeys: KEYS });
  });
  afterAll(() => server.stop());

  const unauthorized = { status: 401, body: { detail: 'Unauthorized' } };
  const firstPage = { status: 200, body: pageBody(searchOrder(EVENTS).slice(0, 2), searchOrder(EVENTS)[2]!.id) };

  it.each([
    ['no header', {}],
    ['a wrong key', { 'X-Session-API-Key': 'wrong' }],
    ['an empty key', { 'X-Session-API-Key': '' }],
    ['a key with a different case', { 'X-Session-API-Key': KEYS[0]!.toUpperCase() }],
    ['a prefix of a key', { 'X-Session-API-Key': KEYS[0]!.slice(0, -1) }],
    ['the key in another header', { Authorization: `Bearer ${KEYS[0]}` }],
  ])('/api without a right key: 401 (%s)', async (_name, headers) => {
    expect(await server.statusAndBody(searchPath(CONVERSATION, { limit: 2 }), headers)).toEqual(unauthorized);
  });

  it('the key is checked before anything else: unknown conversations, bad parameters and unknown /api paths are 401 too', async () => {
    expect(await server.statusAndBody(searchPath(conversationId(99)))).toEqual(unauthorized);
    expect(await server.statusAndBody(searchPath('not-a-uuid', { limit: 0 }))).toEqual(unauthorized);
    expect(await server.statusAndBody('/api/anything')).toEqual(unauthorized);
  });

  it.each(KEYS)('any configured key is accepted (%s), the header name in any case', async (key) => {
    expect(await server.statusAndBody(searchPath(CONVERSATION, { limit: 2 }), { 'X-Session-API-Key': key })).toEqual(firstPage);
    expect(await server.statusAndBody(searchPath(CONVERSATION, { limit: 2 }), { 'x-session-api-key': key })).toEqual(firstPage);
  });

  it('with the right key, errors are the usual ones', async () => {
    const headers = { 'X-Session-API-Key': KEYS[1]! };
    expect(await server.statusAndBody(searchPath(conversationId(99)), headers)).toEqual({
      status: 404,
      body: { detail: `Conversation not found: ${conversationId(99)}` },
    });
    expect((await server.get(searchPath(CONVERSATION, { limit: 0 }), headers)).status).toBe(422);
  });

  it('/alive, /health, /openapi.json and /docs stay open', async () => {
    expect((await server.get('/alive')).status).toBe(200);
    expect((await server.get('/health')).status).toBe(200);
    expect((await server.get('/openapi.json')).status).toBe(200);
    expect((await fetch(`${server.url}/docs/`)).status).toBe(200);
  });

  it('the typed client sends its key', async () => {
    expect(await server.client.listEvents(CONVERSATION)).toEqual(searchOrder(EVENTS));
  });
});
