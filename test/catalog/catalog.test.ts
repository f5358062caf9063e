/**
 * The conversations catalog and the trajectory download over HTTP, on conversation
 * directories laid out as the reference saves them: paging, order, status, count, get,
 * get by ids, skills, and that no stored secret ever leaves the server.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { conversationId, eventId, message } from '../support/events';
import { STORED_SECRETS, writeConversationState } from '../support/conversation-state';
import { type LiveServer, liveServerStoreKind, startLiveServer } from '../support/live-server';
import { unzipWithPython } from '../support/unzip';

const hexOf = (id: string) => id.replaceAll('-', '');

/** Five conversations: created one a day, updated in the reverse order; the fourth has no saved state; the fifth is a child of the first. */
const CONVERSATIONS = [1, 2, 3, 4, 5].map((n) => ({
  id: conversationId(n),
  createdAt: `2026-11-0${n}T10:00:00.000001`,
  updatedAt: `2026-11-2${9 - n}T10:00:00.000001`,
  status: n === 2 ? 'error' : 'finished',
}));

let server: LiveServer;

beforeAll(async () => {
  server = await startLiveServer([
    { id: CONVERSATIONS[0]!.id, events: [message({ id: eventId(1), timestamp: '2026-11-01T10:00:01.000000', source: 'user' }, { text: ['hi'] })] },
  ]);
  for (const [index, conversation] of CONVERSATIONS.entries()) {
    writeConversationState(server.root, conversation.id, {
      ...conversation,
      title: `Conversation ${index + 1}`,
      withoutState: index === 3,
      parentId: index === 4 ? CONVERSATIONS[0]!.id : undefined,
    });
  }
  // A directory without meta.json is not in the catalog, whatever it holds.
  mkdirSync(path.join(server.root, hexOf(conversationId(9)), 'events'), { recursive: true });
});

afterAll(() => server.stop());

async function walk(query: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let pageId: string | null = null;
  let pages = 0;
  do {
    const { status, body } = await server.statusAndBody(`/api/conversations/search?limit=${limit}${query}${pageId ? `&page_id=${pageId}` : ''}`);
    expect(status).toBe(200);
    const page = body as { items: { id: string }[]; next_page_id: string | null };
    ids.push(...page.items.map((item) => item.id));
    pageId = page.next_page_id;
    pages++;
  } while (pageId !== null && pages < 20);
  return { ids, pages };
}

test('the search walks the catalog once in each order, leaving out the conversation without a saved state', async () => {
  const withState = CONVERSATIONS.filter((_, index) => index !== 3).map((conversation) => conversation.id);
  expect((await walk('', 100)).ids).toEqual([...withState].reverse());
  expect((await walk('&sort_order=CREATED_AT', 1)).ids).toEqual(withState);
  expect((await walk('&sort_order=UPDATED_AT', 2)).ids).toEqual([...withState].reverse());
  expect((await walk('&sort_order=UPDATED_AT_DESC', 3)).ids).toEqual(withState);
  // Limit 1 over five entries, one without state: that one is passed over, never an empty page.
  expect((await walk('&sort_order=CREATED_AT', 1)).pages).toBe(4);
});

test('status filters the search and the count; the count without status includes every entry with a meta.json', async () => {
  expect((await walk('&status=error', 100)).ids).toEqual([CONVERSATIONS[1]!.id]);
  expect(await server.statusAndBody('/api/conversations/count')).toEqual({ status: 200, body: 5 });
  expect(await server.statusAndBody('/api/conversations/count?status=error')).toEqual({ status: 200, body: 1 });
  expect(await server.statusAndBody('/api/conversations/count?status=finished')).toEqual({ status: 200, body: 3 });
});

test('an unknown page_id restarts from the first conversation', async () => {
  const first = await server.statusAndBody('/api/conversations/search?limit=2');
  expect(await server.statusAndBody(`/api/conversations/search?limit=2&page_id=${hexOf(conversationId(77))}`)).toEqual(first);
});

test('get answers the search item; get by ids answers null for a miss and for a conversation without state', async () => {
  const { body: page } = await server.statusAndBody('/api/conversations/search?sort_order=CREATED_AT');
  const first = (page as { items: { id: string }[] }).items[0]!;
  expect(await server.statusAndBody(`/api/conversations/${CONVERSATIONS[0]!.id}`)).toEqual({ status: 200, body: first });
  expect(await server.statusAndBody(`/api/conversations/${conversationId(77)}`)).toEqual({ status: 404, body: { detail: 'Not Found' } });
  expect(await server.statusAndBody(`/api/conversations/${CONVERSATIONS[3]!.id}`)).toEqual({ status: 404, body: { detail: 'Not Found' } });
  const { status, body } = await server.statusAndBody(
    `/api/conversations?ids=${hexOf(CONVERSATIONS[0]!.id)}&ids=${conversationId(77)}&ids=${CONVERSATIONS[3]!.id}`,
  );
  expect(status).toBe(200);
  expect(body).toEqual([first, null, null]);
});

test('ConversationInfo is the saved state with the metadata laid over it, children derived, skills left out unless asked for', async () => {
  const { body } = await server.statusAndBody(`/api/conversations/${CONVERSATIONS[0]!.id}`);
  expect(body).toMatchObject({
    id: CONVERSATIONS[0]!.id,
    title: 'Conversation 1',
    created_at: CONVERSATIONS[0]!.createdAt,
    updated_at: CONVERSATIONS[0]!.updatedAt,
    execution_status: 'finished',
    workspace: { working_dir: '/workspace/project', kind: 'LocalWorkspace' },
    sub_conversation_ids: [CONVERSATIONS[4]!.id],
    parent_conversation_id: null,
  });
  expect(body).toMatchObject({ agent: { agent_context: { skills: [], system_message_suffix: 'Be brief.' } } });
  const { body: withSkills } = await server.statusAndBody(`/api/conversations/${CONVERSATIONS[0]!.id}?include_skills=true`);
  expect(withSkills).toMatchObject({ agent: { agent_context: { skills: [{ name: 'repo', content: 'Always run the tests.' }] } } });
});

test('no stored secret is answered: keys are masked as the reference masks them', async () => {
  const answers = [
    await server.get('/api/conversations/search?include_skills=true'),
    await server.get(`/api/conversations/${CONVERSATIONS[0]!.id}?include_skills=true`),
    await server.get(`/api/conversations?ids=${CONVERSATIONS[1]!.id}`),
  ];
  for (const answer of answers) for (const secret of STORED_SECRETS) expect(answer.text).not.toContain(secret);
  expect(answers[1]!.body).toMatchObject({
    agent: {
      llm: { api_key: '**********' },
      condenser: { llm: { aws_secret_access_key: '**********' } },
      mcp_config: { fetch: { env: { TOKEN: '**********' } }, search: { auth: { strategy: 'bearer', value: '**********' } } },
    },
    secret_registry: { secret_sources: { GITHUB_TOKEN: { kind: 'StaticSecret', value: '**********', description: 'GitHub' } } },
  });
});

test('bad catalog parameters are 422s naming the parameter', async () => {
  const cases: [string, string][] = [
    ['/api/conversations/search?limit=101', 'limit'],
    ['/api/conversations/search?limit=0', 'limit'],
    ['/api/conversations/search?status=sleeping', 'status'],
    ['/api/conversations/search?sort_order=NEWEST', 'sort_order'],
    ['/api/conversations/count?status=', 'status'],
    ['/api/conversations?ids=not-a-uuid', 'ids'],
    ['/api/conversations', 'ids'],
    ['/api/conversations/not-a-uuid', 'conversation_id'],
    ['/api/file/download-trajectory/not-a-uuid', 'conversation_id'],
  ];
  for (const [request, parameter] of cases) {
    const { status, body } = await server.statusAndBody(request);
    expect({ request, status }).toEqual({ request, status: 422 });
    expect((body as { detail: { loc: unknown[] }[] }).detail.map((item) => item.loc.at(-1) === parameter || item.loc.includes(parameter))).toContain(
      true,
    );
  }
  const tooMany = Array.from({ length: 100 }, (_, n) => `ids=${conversationId(n)}`).join('&');
  expect((await server.statusAndBody(`/api/conversations?${tooMany}`)).status).toBe(422);
});

test('the trajectory is the conversation directory as a zip, credentials redacted, in path order', async () => {
  const hex = hexOf(CONVERSATIONS[0]!.id);
  // What the reference also leaves out: a file being written and the runtime's credentials.
  writeFileSync(path.join(server.root, hex, 'base_state.json.tmp'), 'half-written');
  mkdirSync(path.join(server.root, hex, 'acp'), { recursive: true });
  writeFileSync(path.join(server.root, hex, 'acp', 'auth.json'), '{"token": "acp-secret"}');
  writeFileSync(path.join(server.root, hex, 'notes.jsonl'), '{"api_key": "sk-plain-llm-key-0001"}\nnot json\n');
  const response = await fetch(`${server.url}/api/file/download-trajectory/${CONVERSATIONS[0]!.id}`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/octet-stream');
  const entries = await unzipWithPython(Buffer.from(await response.arrayBuffer()));
  const listing = Object.fromEntries([...entries].map(([name, bytes]) => [name, bytes.toString('utf8')]));
  // A database holds the events and the two documents of a directory, not its other files (docs/reference-behaviour.md).
  const otherFiles = liveServerStoreKind() === 'sqlite' ? [`${hex}/notes.jsonl`] : [];
  expect(Object.keys(listing)).toEqual([
    `${hex}/`,
    `${hex}/base_state.json`,
    `${hex}/events/`,
    `${hex}/events/event-00000-${eventId(1)}.json`,
    `${hex}/meta.json`,
    ...otherFiles,
  ]);
  const all = Object.values(listing).join('\n');
  for (const secret of ['sk-plain-llm-key-0001', 'AKIAEXAMPLE0001', 'aws-secret-0001', 'gAAAAABencrypted-github-token', 'acp-secret'])
    expect(all).not.toContain(secret);
  if (otherFiles.length > 0) expect(listing[`${hex}/notes.jsonl`]).toBe('{"api_key": "**********"}\nnot json\n');
  expect(JSON.parse(listing[`${hex}/base_state.json`]!).agent.llm.api_key).toBe('**********');
  expect(await server.statusAndBody(`/api/file/download-trajectory/${conversationId(77)}`)).toEqual({
    status: 404,
    body: { detail: 'Conversation not found' },
  });
});

test("server_info answers this server's own values without a session key", async () => {
  const { status, body } = await server.statusAndBody('/server_info');
  expect(status).toBe(200);
  expect(body).toMatchObject({ title: expect.stringContaining('agent-server-contract'), usable_tools: [], docs: '/docs' });
  expect(typeof (body as { uptime: unknown }).uptime).toBe('number');
});

test('a meta.json without times (null) gives a ConversationInfo without them, rather than nulls the contract does not allow', async () => {
  const id = conversationId(8);
  const directory = path.join(server.root, hexOf(id));
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, 'meta.json'), JSON.stringify({ id, title: 'Untimed', created_at: null, updated_at: null }));
  writeFileSync(path.join(directory, 'base_state.json'), JSON.stringify({ id, agent: { kind: 'Agent' }, workspace: { kind: 'LocalWorkspace' } }));
  const { status, body } = await server.statusAndBody(`/api/conversations/${id}`);
  expect(status).toBe(200);
  expect(body).toMatchObject({ id, title: 'Untimed' });
  expect(Object.keys(body as object)).not.toContain('created_at');
  expect(Object.keys(body as object)).not.toContain('updated_at');
});
