import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Event } from '../../src/contract';
import { action, agentError, conversationId, eventId, message, pause } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { searchPath } from '../support/search-requests';

/*
 * The production path (response validation off, as `start` runs it) sends each page built
 * from the stored files' bytes, never re-serialized: escapes, spacing and key order survive.
 */
const CONVERSATION = conversationId(70);
const at = (n: number, timestamp: string) => ({ id: eventId(n), timestamp });
const EVENTS: Event[] = [
  message({ ...at(1, '2026-06-16T05:40:01'), source: 'user' }, { text: ['Caf\u00e9 \u2603'] }),
  action(at(2, '2026-06-16T05:40:02')),
  pause(at(3, '2026-06-16T05:40:03')),
];
// Pretty-printed, with \u escapes and a trailing newline: what a hand-edited or foreign file may look like.
const PRETTY_MESSAGE = `${JSON.stringify(EVENTS[0], null, 2).replace('Café ☃', 'Caf\\u00e9 \\u2603')}\n`;

// Long enough for pages of 100, with an error event every seventh for a sparse filter.
const LONG_CONVERSATION = conversationId(72);
const LONG_EVENTS: Event[] = Array.from({ length: 250 }, (_, n) => {
  const stamp = at(1000 + n, new Date(Date.UTC(2026, 5, 16, 6, 0, n)).toISOString().slice(0, 19));
  return n % 7 === 3 ? agentError(stamp) : action(stamp, `Step ${n}: ${'x'.repeat(n % 50)}`);
});

let server: LiveServer;
let stored: string[];
let storedLong: string[];
beforeAll(async () => {
  server = await startLiveServer(
    [
      { id: CONVERSATION, events: EVENTS },
      { id: LONG_CONVERSATION, events: LONG_EVENTS },
    ],
    { validateResponses: false },
  );
  const storedEvents = (id: string) => {
    const directory = path.join(server.root, id.replaceAll('-', ''), 'events');
    return readdirSync(directory)
      .sort()
      .map((name) => path.join(directory, name));
  };
  const files = storedEvents(CONVERSATION);
  writeFileSync(files[0]!, PRETTY_MESSAGE);
  stored = files.map((file) => readFileSync(file, 'utf8').trim());
  storedLong = storedEvents(LONG_CONVERSATION).map((file) => readFileSync(file, 'utf8').trim());
});
afterAll(() => server.stop());

describe('pages from stored bytes', () => {
  it('the body is the stored events, byte for byte, in a page frame', async () => {
    const response = await fetch(`${server.url}${searchPath(CONVERSATION)}`);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(text).toBe(`{"items":[${stored.join(',')}],"next_page_id":null}`);
    expect(text).toContain('"Caf\\u00e9 \\u2603"');
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(JSON.parse(text)).toEqual({ items: EVENTS, next_page_id: null });
  });

  it('a partial page carries next_page_id, and an empty page is a bare frame', async () => {
    expect((await server.get(searchPath(CONVERSATION, { limit: 2, sort_order: 'TIMESTAMP_DESC' }))).text).toBe(
      `{"items":[${stored[2]},${stored[1]}],"next_page_id":${JSON.stringify(EVENTS[0]!.id)}}`,
    );
    expect((await server.get(searchPath(CONVERSATION, { kind: 'TokenEvent' }))).text).toBe('{"items":[],"next_page_id":null}');
  });

  it('long pages, ascending, descending, resumed and filtered, are the stored bytes in order', async () => {
    const page = (items: string[], next: string | null) => `{"items":[${items.join(',')}],"next_page_id":${JSON.stringify(next)}}`;
    const idOf = (n: number) => LONG_EVENTS[n]!.id!;
    const errors = storedLong.filter((_, n) => n % 7 === 3);

    const first = await fetch(`${server.url}${searchPath(LONG_CONVERSATION, { limit: 100 })}`);
    const firstText = await first.text();
    expect(firstText).toBe(page(storedLong.slice(0, 100), idOf(100)));
    expect(Number(first.headers.get('content-length'))).toBe(Buffer.byteLength(firstText));
    expect((await server.get(searchPath(LONG_CONVERSATION, { limit: 100, page_id: idOf(200) }))).text).toBe(page(storedLong.slice(200), null));
    expect((await server.get(searchPath(LONG_CONVERSATION, { limit: 100, sort_order: 'TIMESTAMP_DESC' }))).text).toBe(
      page(storedLong.slice(150).reverse(), idOf(149)),
    );
    expect((await server.get(searchPath(LONG_CONVERSATION, { kind: 'AgentErrorEvent' }))).text).toBe(page(errors, null));
  });

  it('errors have the same bodies as with response validation on', async () => {
    expect(await server.statusAndBody(searchPath(conversationId(71)))).toEqual({
      status: 404,
      body: { detail: `Conversation not found: ${conversationId(71)}` },
    });
    expect(await server.statusAndBody(searchPath(CONVERSATION, { limit: 0 }))).toEqual({
      status: 422,
      body: { detail: [{ type: 'greater_than', loc: ['query', 'limit'], msg: 'Input should be greater than 0', input: '0', ctx: { gt: 0 } }] },
    });
    // sort_order's schema is a $ref the validator keeps when it drops the response schemas.
    expect(await server.statusAndBody(searchPath(CONVERSATION, { sort_order: 'BAD' }))).toEqual({
      status: 422,
      body: {
        detail: [
          {
            type: 'enum',
            loc: ['query', 'sort_order'],
            msg: "Input should be 'TIMESTAMP' or 'TIMESTAMP_DESC'",
            input: 'BAD',
            ctx: { expected: "'TIMESTAMP' or 'TIMESTAMP_DESC'" },
          },
        ],
      },
    });
  });
});
