import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Event } from '../../src/contract';
import { action, conversationId, eventId, message, pause } from '../support/events';
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

let server: LiveServer;
let stored: string[];
beforeAll(async () => {
  server = await startLiveServer([{ id: CONVERSATION, events: EVENTS }], { validateResponses: false });
  const directory = path.join(server.root, CONVERSATION.replaceAll('-', ''), 'events');
  const names = readdirSync(directory).sort();
  writeFileSync(path.join(directory, names[0]!), PRETTY_MESSAGE);
  stored = names.map((name) => readFileSync(path.join(directory, name), 'utf8').trim());
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

  it('errors have the same bodies as with response validation on', async () => {
    expect(await server.statusAndBody(searchPath(conversationId(71)))).toEqual({ status: 404, body: { detail: `Conversation not found: ${conversationId(71)}` } });
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
