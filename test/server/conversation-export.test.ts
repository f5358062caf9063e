/**
 * `GET /api/stored-conversations/{conversation_id}/export` over HTTP on real files: JSON
 * lines are the served events in order, across the store's batches; the Markdown is the
 * readable document the contract describes, without encrypted reasoning or secrets; both
 * come as attachments. test/postgres runs this file again on the PostgreSQL store.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Event, EventOfKind } from '../../src/contract';
import { eventFileName } from '../../src/fixture/layout';
import { action, agentError, conversationId, eventId, message, observation, stateUpdate } from '../support/events';
import { eventually } from '../support/eventually';
import { type LiveServer, startLiveServer } from '../support/live-server';

const READABLE = conversationId(1);
const LONG = conversationId(2);
const LONG_EVENTS = 2500;
const SECRET = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';
const ENCRYPTED = 'gAAAAB-encrypted-reasoning-blob';

function terminalAction(n: number, command: string): EventOfKind<'ActionEvent'> {
  const base = action({ id: eventId(n), timestamp: `2026-06-01T10:00:0${n % 10}` }, 'I will run the tests.');
  const args = JSON.stringify({ command, api_key: SECRET });
  return {
    ...base,
    tool_name: 'terminal',
    summary: 'Run the test suite',
    action: { command, kind: 'TerminalAction' } as never,
    tool_call: { ...base.tool_call, name: 'terminal', arguments: args },
  };
}

function terminalObservation(n: number, actionId: string, output: string, isError: boolean): EventOfKind<'ObservationEvent'> {
  const base = observation({ id: eventId(n), timestamp: `2026-06-01T10:00:0${n % 10}` });
  return {
    ...base,
    tool_name: 'terminal',
    action_id: actionId,
    observation: {
      content: [{ type: 'text', text: output }],
      command: 'npm test',
      exit_code: 1,
      is_error: isError,
      kind: 'TerminalObservation',
    } as never,
  };
}

function readableConversation(): Event[] {
  const reasoning = message(
    { id: eventId(6), timestamp: '2026-06-01T10:00:06', source: 'agent' },
    { text: ['The tests fail on a missing fixture.'] },
  );
  reasoning.llm_message.responses_reasoning_item = { id: 'rs_1', summary: ['Thinking about fixtures'], encrypted_content: ENCRYPTED };
  return [
    // Written before the task, as the system prompt and state updates are: the Markdown still opens with the task.
    stateUpdate({ id: eventId(8), timestamp: '2026-06-01T10:00:00' }),
    message({ id: eventId(1), timestamp: '2026-06-01T10:00:01', source: 'user' }, { text: ['Make the test suite pass. <script>alert(1)</script>'] }),
    terminalAction(2, 'npm test'),
    terminalObservation(3, eventId(2), Array.from({ length: 40 }, (_, i) => `line ${i} \`\`\` of output`).join('\n'), true),
    agentError({ id: eventId(4), timestamp: '2026-06-01T10:00:04' }, 'The terminal timed out.'),
    message({ id: eventId(5), timestamp: '2026-06-01T10:00:05', source: 'user' }, { text: [`Use this key: ${SECRET}`] }),
    reasoning,
  ];
}

let server: LiveServer;
beforeAll(async () => {
  const long = Array.from({ length: LONG_EVENTS }, (_, i) =>
    message(
      {
        id: eventId(10_000 + i),
        timestamp: `2026-06-02T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`,
        source: 'agent',
      },
      { text: [`event ${i}`] },
    ),
  );
  server = await startLiveServer([
    { id: READABLE, events: readableConversation() },
    { id: LONG, events: long },
  ]);
  // A stored file written with indentation: its JSON line must still be one line.
  const indented = message({ id: eventId(7), timestamp: '2026-06-01T10:00:07', source: 'agent' }, { text: ['Done.\nAll green.'] });
  writeFileSync(path.join(server.root, READABLE.replaceAll('-', ''), 'events', eventFileName(7, eventId(7))), JSON.stringify(indented, null, 2));
  await eventually(async () => expect((await server.client.getEvent(READABLE, eventId(7))).ok).toBe(true), { withinMs: 5000, everyMs: 100 });
});
afterAll(() => server.stop());
afterEach(() => {
  expect(server.logs.filter((line) => line.includes('"level":"error"'))).toEqual([]);
});

async function exported(conversation: string, format?: string): Promise<Response> {
  return fetch(`${server.url}/api/stored-conversations/${conversation}/export${format ? `?format=${format}` : ''}`);
}

describe('JSON lines', () => {
  it.each([READABLE, LONG])('are the served events of %s in the search order, one a line, as an attachment', async (conversation) => {
    const response = await exported(conversation, 'jsonl');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="conversation-${conversation}.jsonl"`);
    const text = await response.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(await server.client.listEvents(conversation));
  });

  it('is the default format', async () => {
    const response = await exported(READABLE);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    expect((await response.text()).split('\n').filter(Boolean)).toHaveLength(8);
  });
});

describe('Markdown', () => {
  let markdown: string;
  beforeAll(async () => {
    const response = await exported(READABLE, 'markdown');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="conversation-${READABLE}.md"`);
    markdown = await response.text();
  });

  it('opens with the conversation and its task', () => {
    expect(markdown).toMatch(/^# .+\n/);
    expect(markdown).toContain(READABLE);
    const task = markdown.indexOf('## Task');
    expect(task).toBeGreaterThan(0);
    // The task comes first; the state update written before it follows under the events.
    expect(markdown.indexOf('## Events')).toBeGreaterThan(task);
    expect(markdown.indexOf(`<a id="event-${eventId(8)}">`)).toBeGreaterThan(markdown.indexOf('## Events'));
    expect(markdown.slice(task)).toMatch(/^## Task\n\n<a id="event-[^"]+"><\/a>\*user · 2026-06-01T10:00:01\*\n\nMake the test suite pass\./);
    // Stored text is not markup that a renderer would run.
    expect(markdown).not.toContain('<script>');
  });

  it('writes each action with its tool, summary and arguments, and its result fenced, linked to it, marked as an error and folded when long', () => {
    expect(markdown).toContain(`### <a id="event-${eventId(2)}"></a>▶ Action: \`terminal\` · Run the test suite`);
    expect(markdown).toContain('**Tool:** `terminal`');
    expect(markdown).toContain('**Summary:** Run the test suite');
    expect(markdown).toMatch(/\*\*Arguments\*\*\n\n```json\n\{\n {2}"command": "npm test",/);
    expect(markdown).toContain(`↳ Result of [the action](#event-${eventId(2)})`);
    expect(markdown).toContain('**⚠ The tool reported an error.**');
    expect(markdown).toContain('<details><summary>Output (40 lines)</summary>');
    // The output holds runs of three backticks, so its fence is longer.
    expect(markdown).toContain('````text\nline 0 ``` of output');
    expect(markdown).toContain('### <a id="event-00000000-0000-4000-8000-000000000004"></a>⚠ Error in `terminal`');
  });

  it('writes messages as text, with their reasoning folded, and never encrypted reasoning or a secret', () => {
    expect(markdown).toContain('The tests fail on a missing fixture.');
    expect(markdown).toContain('<details><summary>Reasoning</summary>');
    expect(markdown).toContain('Thinking about fixtures');
    expect(markdown).toContain('Done.\nAll green.');
    expect(markdown).not.toContain(ENCRYPTED);
    expect(markdown).not.toContain('encrypted_content');
    expect(markdown).not.toContain(SECRET);
    expect(markdown).toContain('Use this key: **********');
  });
});

it('a client that goes away in the middle of an export leaves the server answering', async () => {
  const abort = new AbortController();
  const response = await fetch(`${server.url}/api/stored-conversations/${LONG}/export?format=markdown`, { signal: abort.signal });
  const reader = response.body!.getReader();
  await reader.read();
  abort.abort();
  await reader.read().catch(() => undefined);
  const again = await exported(LONG, 'jsonl');
  expect(again.status).toBe(200);
  expect((await again.text()).split('\n').filter(Boolean)).toHaveLength(LONG_EVENTS);
});

describe('bad requests', () => {
  it('an unknown conversation is a 404 naming it', async () => {
    const response = await exported(conversationId(99), 'markdown');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: `Conversation not found: ${conversationId(99)}` });
  });

  it('an unknown format is a 422 naming the parameter', async () => {
    const response = await exported(READABLE, 'pdf');
    expect(response.status).toBe(422);
    const body = (await response.json()) as { detail: { loc: string[]; type: string }[] };
    expect(body.detail.map((item) => [item.loc, item.type])).toEqual([[['query', 'format'], 'enum']]);
  });

  it('a malformed conversation id is a 422 naming it', async () => {
    const response = await exported('not-a-uuid');
    expect(response.status).toBe(422);
    expect(((await response.json()) as { detail: { loc: string[] }[] }).detail[0]?.loc).toEqual(['path', 'conversation_id']);
  });
});
