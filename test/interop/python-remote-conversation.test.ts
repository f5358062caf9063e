/**
 * The Python SDK's RemoteConversation (the reference's own client, from the pinned
 * environment) attaches to a conversation on our server: it gets the conversation from the
 * catalog, validates its agent, authenticates its socket with the first auth frame, takes
 * the full_state frame as ready, loads the events over REST, and receives an appended
 * event through its callbacks.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pythonEnvironment } from '../../dev/python/environment';
import { REFERENCE_SERVER } from '../../dev/python/toolsets';
import { eventFileName, serializeEvent } from '../../src/fixture/layout';
import { conversationId, eventId, message } from '../support/events';
import { writeConversationState } from '../support/conversation-state';
import { type LiveServer, startLiveServer } from '../support/live-server';

const ID = conversationId(1);
const stamp = (second: number) => `2026-11-25T10:00:${String(second).padStart(2, '0')}.000001`;
const EVENTS = [1, 2, 3].map((n) => message({ id: eventId(n), timestamp: stamp(n), source: n % 2 ? 'user' : 'agent' }, { text: [`message ${n}`] }));
const LIVE = message({ id: eventId(4), timestamp: stamp(4), source: 'agent' }, { text: ['appended'] });

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer([{ id: ID, events: EVENTS }], { sessionApiKeys: ['python-key'] });
  writeConversationState(server.root, ID, { createdAt: stamp(0), updatedAt: stamp(9), status: 'paused' });
});
afterAll(() => server.stop());

test('RemoteConversation attaches, reads the state and the events, and receives an appended event', async () => {
  const { python } = await pythonEnvironment(REFERENCE_SERVER);
  const script = path.join(__dirname, 'support', 'python-remote-conversation.py');
  const child = spawn(python, [script, server.url, ID, 'python-key', LIVE.id as string], {
    env: { ...process.env, LITELLM_LOCAL_MODEL_COST_MAP: 'True', OPENHANDS_SUPPRESS_BANNER: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const attached = new Promise<string>((resolve) => {
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('attached '));
      if (line) resolve(line.slice('attached '.length));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const first = await Promise.race([attached, exited.then((code) => Promise.reject(new Error(`the SDK exited ${code}: ${stderr}`)))]);
  const summary = JSON.parse(first) as {
    id: string;
    execution_status: string;
    agent_model: string;
    workspace: string;
    events: { id: string; kind: string }[];
  };
  expect(summary).toMatchObject({ id: ID, execution_status: 'paused', agent_model: 'openai/gpt-4o-mini', workspace: '/workspace/project' });
  // The stored events in order; the SDK keeps the socket's unpersisted full_state update among them too, as it does with the reference.
  const stored = summary.events.filter((event) => event.kind !== 'ConversationStateUpdateEvent');
  expect(stored).toEqual(EVENTS.map((event) => ({ id: event.id, kind: 'MessageEvent' })));

  writeFileSync(path.join(server.root, ID.replaceAll('-', ''), 'events', eventFileName(EVENTS.length, LIVE.id as string)), serializeEvent(LIVE));
  expect(await exited).toBe(0);
  expect(stdout).toContain(`live ${LIVE.id}`);
});
