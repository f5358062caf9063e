/**
 * What must never be written out (seed section 2.3; docs/reference-behaviour.md, "Search"): the
 * `encrypted_content` of a reasoning item never reaches a log line, whether its event is
 * served, skipped as invalid or unreadable, or a request around it fails; and a 422 never
 * echoes a value that looks like a key (`looksSecret` in src/secrets/credential-text.ts).
 * Session keys in logs and bodies are covered over the real CLI in cli-session-keys.test.ts.
 */
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Event, EventOfKind } from '../../src/contract';
import { eventFileName, serializeEvent } from '../../src/fixture';
import { action, conversationId, eventId, message } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { pageBody } from '../support/search-requests';

const CONVERSATION = conversationId(90);
const HEX = CONVERSATION.replaceAll('-', '');
const ENCRYPTED = 'gAAAAB-encrypted-reasoning-0f9e8d7c6b5a';
const reasoningItem = { id: 'rs_1', summary: ['Looked at the tests.'], content: null, encrypted_content: ENCRYPTED, status: 'completed' };
const stamp = (n: number) => ({ id: eventId(n), timestamp: `2026-06-16T05:40:0${n}.000001` });

const withReasoning: EventOfKind<'ActionEvent'> = { ...action(stamp(1)), responses_reasoning_item: reasoningItem };
const plainMessage = message({ ...stamp(2), source: 'agent' }, { text: ['Done.'] });
const messageWithReasoning = ((): Event => {
  const base = message({ ...stamp(3), source: 'agent' }, { text: ['Thinking done.'] });
  return { ...base, llm_message: { ...base.llm_message, responses_reasoning_item: reasoningItem } };
})();
const SERVED: Event[] = [withReasoning, plainMessage, messageWithReasoning];

/** An event file cut off right after the secret, as if caught half-written. */
function truncatedAfterSecret(): string {
  const text = serializeEvent({ ...withReasoning, id: eventId(4) });
  return text.slice(0, text.indexOf(ENCRYPTED) + ENCRYPTED.length);
}

/** Files that are skipped, each with the encrypted content inside. */
const BROKEN_FILES: Array<[string, string]> = [
  ['truncated JSON', truncatedAfterSecret()],
  ['not JSON, starting with the secret (V8 quotes the text near a JSON error)', `${ENCRYPTED} ${ENCRYPTED}`],
  [
    'the secret where a number belongs',
    serializeEvent({ ...withReasoning, id: eventId(7), tool_call_id: 7 } as unknown as Event).replace(
      '"tool_call_id":7',
      `"tool_call_id":{"${ENCRYPTED}":1}`,
    ),
  ],
];
/** Served with the property the contract does not list removed: the secret it held is neither served nor logged. */
const UNLISTED_HOLDING_SECRET = serializeEvent({ ...withReasoning, id: eventId(6), unexpected: ENCRYPTED } as unknown as Event);
/** Not served (a kind the contract does not have), and its content never logged. */
const UNKNOWN_KIND_HOLDING_SECRET = JSON.stringify({ id: eventId(8), source: 'hook', hook_command: ENCRYPTED, kind: 'HookExecutionEvent' });
const SESSION_KEY = 'sk-live-session-key-abcdef012345';

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer([{ id: CONVERSATION, events: SERVED }]);
  const events = path.join(server.root, HEX, 'events');
  for (const [i, [, content]] of BROKEN_FILES.entries()) writeFileSync(path.join(events, eventFileName(SERVED.length + i, eventId(10 + i))), content);
  writeFileSync(path.join(events, eventFileName(SERVED.length + BROKEN_FILES.length, eventId(6))), UNLISTED_HOLDING_SECRET);
  writeFileSync(path.join(events, eventFileName(SERVED.length + BROKEN_FILES.length + 1, eventId(8))), UNKNOWN_KIND_HOLDING_SECRET);
});
afterAll(() => server.stop());

it('encrypted_content is served in the page, as stored, and never logged: not while loading, skipping, answering errors or failing', async () => {
  const page = await server.statusAndBody(`/api/conversations/${CONVERSATION}/events/search`);
  expect(page).toEqual({ status: 200, body: pageBody([withReasoning, { ...withReasoning, id: eventId(6) }, plainMessage, messageWithReasoning]) });
  expect(JSON.stringify(page.body)).not.toContain(`"unexpected"`);
  for (const query of ['limit=0', 'kind=ActionEvent&limit=1', `page_id=${ENCRYPTED}`, `body=${ENCRYPTED}`, 'timestamp__gte=garbage']) {
    expect((await server.get(`/api/conversations/${CONVERSATION}/events/search?${query}`)).status).toBeLessThan(500);
  }
  expect((await server.get(`/api/conversations/${conversationId(91)}/events/search`, { 'X-Session-API-Key': SESSION_KEY })).status).toBe(404);

  const skipped = server.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['message'] === 'event files skipped');
  expect(skipped.reduce((files, line) => files + (line['files'] as number), 0)).toBe(BROKEN_FILES.length);
  expect((await server.statusAndBody('/health')).body).toMatchObject({
    status: 'ok',
    conversations_loaded: 1,
    events_loaded: SERVED.length + 1,
    events_skipped_invalid: BROKEN_FILES.length,
    stored_events: { unlisted_property_counts: { unexpected: 1 }, not_served_by_kind: { HookExecutionEvent: 1 } },
  });
  // A storage fault is logged with its stack (the root replaced by a link to itself): the secret must not ride along.
  rmSync(server.root, { recursive: true, force: true });
  symlinkSync(server.root, server.root);
  expect((await server.get(`/api/conversations/${conversationId(92)}/events/search`)).status).toBe(500);

  const logged = server.logs.join('\n');
  expect(logged).not.toContain(ENCRYPTED);
  expect(logged).not.toContain(ENCRYPTED.slice(0, 10));
  expect(logged).not.toContain(SESSION_KEY);
});

describe('a 422 never echoes a value that looks like a key', () => {
  const INT_PARSING = 'Input should be a valid integer, unable to parse string as an integer';
  const cases: Array<[string, { query: string; conversation?: string; want: unknown }]> = [
    [
      'an OpenAI-style key as the limit',
      { query: 'limit=sk-abcdef0123456789', want: [{ type: 'int_parsing', loc: ['query', 'limit'], msg: INT_PARSING }] },
    ],
    [
      'a GitHub token as the sort order',
      {
        query: 'sort_order=ghp_abcdef0123456789',
        want: [
          {
            type: 'enum',
            loc: ['query', 'sort_order'],
            msg: "Input should be 'TIMESTAMP' or 'TIMESTAMP_DESC'",
            ctx: { expected: "'TIMESTAMP' or 'TIMESTAMP_DESC'" },
          },
        ],
      },
    ],
    [
      'a bearer token as a timestamp',
      {
        query: 'timestamp__gte=Bearer%20abcdef0123456789',
        want: [
          {
            type: 'datetime_from_date_parsing',
            loc: ['query', 'timestamp__gte'],
            msg: 'Input should be a valid datetime or date, invalid character in year',
            ctx: { error: 'invalid character in year' },
          },
        ],
      },
    ],
    [
      'a key as the conversation id',
      {
        query: '',
        conversation: 'sk-abcdef0123456789',
        want: [
          {
            type: 'uuid_parsing',
            loc: ['path', 'conversation_id'],
            msg: 'Input should be a valid UUID, invalid character: found `s` at 0',
            ctx: { error: 'invalid character: found `s` at 0' },
          },
        ],
      },
    ],
    [
      'a key with a broken escape as the conversation id (the undecodable-path answer)',
      {
        query: '',
        conversation: 'sk-abcdef0123456789%',
        want: [
          {
            type: 'uuid_parsing',
            loc: ['path', 'conversation_id'],
            msg: 'Input should be a valid UUID, invalid character: found `s` at 0',
            ctx: { error: 'invalid character: found `s` at 0' },
          },
        ],
      },
    ],
    [
      'a value that does not look like a key is echoed',
      { query: 'limit=abc', want: [{ type: 'int_parsing', loc: ['query', 'limit'], msg: INT_PARSING, input: 'abc' }] },
    ],
  ];
  let keyless: LiveServer;
  beforeAll(async () => {
    keyless = await startLiveServer([{ id: CONVERSATION, events: SERVED }]);
  });
  afterAll(() => keyless.stop());

  it.each(cases)('%s', async (_name, { query, conversation = CONVERSATION, want }) => {
    expect(await keyless.statusAndBody(`/api/conversations/${conversation}/events/search${query === '' ? '' : `?${query}`}`)).toEqual({
      status: 422,
      body: { detail: want },
    });
  });
});
