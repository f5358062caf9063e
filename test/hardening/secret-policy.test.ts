/**
 * The one secret policy (src/secrets), over HTTP and the socket on a conversation saved as the
 * reference saves it, with secrets in every field the agent SDK treats as one and inside
 * events: nothing the server sends, whichever way, holds one in clear, and an event with
 * nothing to mask is still served byte for byte as stored.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeConversationState } from '../support/conversation-state';
import { conversationId, eventId, message, observation, stateUpdate } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { openTestSocket, socketUrl } from '../support/socket-client';
import { unzipWithPython } from '../support/unzip';

const ID = conversationId(1);
const HEX = ID.replaceAll('-', '');
const MASK = '**********';

/** Each held in clear by the saved state below, in a field the SDK treats as secret. */
const STATE_SECRETS = {
  llmKey: 'sk-plain-llm-key-0001',
  condenserKey: 'sk-condenser-key-0002',
  awsKeyId: 'AKIAEXAMPLE0001',
  awsSecret: 'aws-secret-0001',
  awsSession: 'aws-session-token-0001',
  registryValue: 'registry-plain-token-0001',
  lookupHeader: 'lookup-bearer-0001',
  mcpEnv: 'mcp-env-token-0001',
  mcpHeader: 'mcp-header-token-0001',
  mcpPassword: 'mcp-password-0001',
  mcpClientSecret: 'mcp-client-secret-0001',
  mcpAccessToken: 'mcp-access-token-0001',
  encrypted: 'gAAAAABencrypted-github-token',
  contextSecret: 'agent-context-secret-0001',
  acpSession: 'acp-resume-session-0001',
};
/** Held only by events: a key in a stored state update, and a Fernet token in a tool's output. */
const EVENT_KEY = 'sk-event-state-key-0003';
const EVENT_CIPHERTEXT = 'gAAAAABevent-ciphertext-0004';
/** Held by meta.json, which the catalog lays over the state: a client tool's headers, and the secrets the conversation was started with. */
const META_SECRET = 'meta-tool-token-0005';
const META_START_SECRET = 'meta-start-secret-0006';
const ALL_SECRETS = [...Object.values(STATE_SECRETS), EVENT_KEY, EVENT_CIPHERTEXT, META_SECRET, META_START_SECRET];

const PLAIN_EVENT = message({ id: eventId(1), timestamp: '2026-11-01T10:00:01.000000', source: 'user' }, { text: ['Deploy it.'] });
const KEY_UPDATE = stateUpdate({ id: eventId(2), timestamp: '2026-11-01T10:00:02.000000' }, 'agent', {
  llm: { model: 'openai/gpt-4o', api_key: EVENT_KEY, aws_session_token: STATE_SECRETS.awsSession },
  kind: 'Agent',
});
/** A tool echoing the registry's token and the LLM key in its output, as a terminal would. */
const ECHO = observation(
  { id: eventId(3), timestamp: '2026-11-01T10:00:03.000000' },
  `$ env\nGITHUB_TOKEN=${STATE_SECRETS.registryValue}\nOPENAI_API_KEY=${STATE_SECRETS.llmKey}\nSESSION=${EVENT_CIPHERTEXT}`,
);

let server: LiveServer;

beforeAll(async () => {
  server = await startLiveServer([{ id: ID, events: [PLAIN_EVENT, KEY_UPDATE, ECHO] }]);
  writeConversationState(server.root, ID, { createdAt: '2026-11-01T10:00:00.000001', updatedAt: '2026-11-01T10:00:03.000001', title: 'Secrets' });
  const stateFile = path.join(server.root, HEX, 'base_state.json');
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  state.agent.llm.aws_session_token = STATE_SECRETS.awsSession;
  state.agent.condenser.llm.api_key = STATE_SECRETS.condenserKey;
  state.agent.mcp_config = {
    fetch: { command: 'uvx', env: { TOKEN: STATE_SECRETS.mcpEnv } },
    search: { url: 'https://mcp.example/v1', headers: { 'X-Token': STATE_SECRETS.mcpHeader } },
    basic: { url: 'https://basic.example', auth: { strategy: 'basic', username: 'me', password: STATE_SECRETS.mcpPassword } },
    oauth: {
      url: 'https://oauth.example',
      auth: { strategy: 'oauth', client_id: 'app', client_secret: STATE_SECRETS.mcpClientSecret, access_token: STATE_SECRETS.mcpAccessToken },
    },
  };
  state.secret_registry.secret_sources = {
    GITHUB_TOKEN: { kind: 'StaticSecret', value: STATE_SECRETS.registryValue, description: 'GitHub' },
    VAULT: { kind: 'StaticSecret', value: STATE_SECRETS.encrypted, description: 'Vault' },
    LOOKUP: { kind: 'LookupSecret', url: 'https://secrets.example/v1', headers: { Authorization: STATE_SECRETS.lookupHeader } },
  };
  // The SDK's other secret fields: an agent context's `secrets` (a clear string or a source) and an ACP agent's session to resume.
  state.agent.agent_context = {
    secrets: { DEPLOY_KEY: STATE_SECRETS.contextSecret, VIA_SOURCE: { kind: 'StaticSecret', value: STATE_SECRETS.contextSecret } },
  };
  state.agent.acp_resume_session_id = STATE_SECRETS.acpSession;
  writeFileSync(stateFile, JSON.stringify(state, null, 2));
  const metaFile = path.join(server.root, HEX, 'meta.json');
  const meta = JSON.parse(readFileSync(metaFile, 'utf8'));
  meta.client_tools = [{ name: 'deploy', url: 'https://deploy.example', headers: { Authorization: META_SECRET } }];
  meta.secrets = { GITHUB_TOKEN: META_START_SECRET };
  writeFileSync(metaFile, JSON.stringify(meta));
});

afterAll(() => server.stop());

function expectNoSecret(surface: string, text: string): void {
  for (const secret of ALL_SECRETS) expect({ surface, leaks: text.includes(secret) ? secret : null }).toEqual({ surface, leaks: null });
}

test('pages, get-by-id and the search across conversations mask the fields and the known values inside events', async () => {
  const page = await server.get(`/api/conversations/${ID}/events/search`);
  expect(page.status).toBe(200);
  expectNoSecret('events search', page.text);
  const items = (page.body as { items: Record<string, unknown>[] }).items;
  expect(items.map((item) => item['id'])).toEqual([eventId(1), eventId(2), eventId(3)]);
  expect(items[1]).toMatchObject({ key: 'agent', value: { llm: { model: 'openai/gpt-4o', api_key: MASK, aws_session_token: MASK } } });
  expect(items[2]).toMatchObject({
    observation: { content: [{ text: `$ env\nGITHUB_TOKEN=${MASK}\nOPENAI_API_KEY=${MASK}\nSESSION=${MASK}` }] },
  });
  for (const n of [2, 3]) {
    const single = await server.get(`/api/conversations/${ID}/events/${eventId(n)}`);
    expect(single.status).toBe(200);
    expectNoSecret(`get ${n}`, single.text);
    expect(single.body).toEqual(items[n - 1]);
  }
  const across = await server.get('/api/stored-conversations/events/search?limit=100');
  expect(across.status).toBe(200);
  expectNoSecret('search across conversations', across.text);
  expect((across.body as { items: unknown[] }).items).toHaveLength(3);
});

test('an event with nothing to mask is served byte for byte as stored', async () => {
  const eventsDirectory = path.join(server.root, HEX, 'events');
  const file = readdirSync(eventsDirectory).find((name) => name.includes(eventId(1)))!;
  const single = await server.get(`/api/conversations/${ID}/events/${eventId(1)}`);
  expect(single.text).toBe(readFileSync(path.join(eventsDirectory, file), 'utf8'));
});

test('the socket masks its full state, every resent event and every live one', async () => {
  const socket = openTestSocket(socketUrl(server.url, ID, 'resend_mode=all'));
  await socket.framesArrived(4);
  // Appended while the socket is open: the agent echoes the registry's token once more.
  const live = observation({ id: eventId(4), timestamp: '2026-11-01T10:00:04.000000' }, `token is ${STATE_SECRETS.registryValue}`);
  writeFileSync(path.join(server.root, HEX, 'events', `event-00003-${eventId(4)}.json`), JSON.stringify(live));
  const frames = await socket.framesArrived(5);
  socket.ws.close();
  for (const frame of frames) expectNoSecret('socket frame', frame);
  const fullState = JSON.parse(frames[0]!);
  expect(fullState.value.agent.llm.api_key).toBe(MASK);
  expect(JSON.parse(frames[2]!)).toMatchObject({ value: { llm: { api_key: MASK } } });
  expect(JSON.parse(frames[4]!)).toMatchObject({ id: eventId(4), observation: { content: [{ text: `token is ${MASK}` }] } });
});

test('the catalog masks every secret field of the saved state, keeping what names the registry entries', async () => {
  for (const request of ['/api/conversations/search', `/api/conversations/${ID}`, `/api/conversations?ids=${ID}`]) {
    const answer = await server.get(request);
    expect(answer.status).toBe(200);
    expectNoSecret(request, answer.text);
  }
  const { body } = await server.statusAndBody(`/api/conversations/${ID}`);
  expect(body).toMatchObject({
    agent: {
      llm: { api_key: MASK, aws_access_key_id: MASK, aws_secret_access_key: MASK, aws_session_token: MASK },
      condenser: { llm: { api_key: MASK } },
      mcp_config: {
        fetch: { env: { TOKEN: MASK } },
        search: { headers: { 'X-Token': MASK } },
        basic: { auth: { strategy: 'basic', username: 'me', password: MASK } },
        oauth: { auth: { client_id: 'app', client_secret: MASK, access_token: MASK } },
      },
    },
    client_tools: [{ name: 'deploy', headers: { Authorization: MASK } }],
    secret_registry: {
      secret_sources: {
        GITHUB_TOKEN: { kind: 'StaticSecret', value: MASK, description: 'GitHub' },
        VAULT: { kind: 'StaticSecret', value: MASK, description: 'Vault' },
        LOOKUP: { kind: 'LookupSecret', url: MASK, headers: { Authorization: MASK } },
      },
    },
  });
});

test('both exports and the trajectory zip hold no secret', async () => {
  for (const format of ['jsonl', 'markdown']) {
    const response = await fetch(`${server.url}/api/stored-conversations/${ID}/export?format=${format}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expectNoSecret(`${format} export`, text);
    expect(text).toContain(`GITHUB_TOKEN=${MASK}`);
  }
  const zip = await fetch(`${server.url}/api/file/download-trajectory/${ID}`);
  expect(zip.status).toBe(200);
  const entries = await unzipWithPython(Buffer.from(await zip.arrayBuffer()));
  for (const [name, bytes] of entries) expectNoSecret(`zip ${name}`, bytes.toString('utf8'));
  const state = JSON.parse(entries.get(`${HEX}/base_state.json`)!.toString('utf8'));
  expect(state.secret_registry.secret_sources.GITHUB_TOKEN).toEqual({ kind: 'StaticSecret', value: MASK, description: 'GitHub' });
  expect(state.agent.mcp_config.fetch.env.TOKEN).toBe(MASK);
});

test('nothing the server logged holds a secret', () => {
  expectNoSecret('logs', server.logs.join('\n'));
});
