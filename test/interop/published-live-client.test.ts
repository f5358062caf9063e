/**
 * The published @openhands/typescript-client reads our server as it reads the reference:
 * its ConversationManager lists, counts and gets conversations from the catalog, and its
 * WebSocketCallbackClient (key in the query string, no resend mode) receives the
 * full_state frame and then the events appended while it listens.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { eventFileName, serializeEvent } from '../../src/fixture/layout';
import { conversationId, eventId, message } from '../support/events';
import { STORED_SECRETS, writeConversationState } from '../support/conversation-state';
import { type LiveServer, startLiveServer } from '../support/live-server';

const IDS = [conversationId(1), conversationId(2), conversationId(3)];
const stamp = (second: number) => `2026-11-25T11:00:${String(second).padStart(2, '0')}.000001`;
const KEY = 'interop-key';

let server: LiveServer;
beforeAll(async () => {
  server = await startLiveServer(
    IDS.map((id, n) => ({ id, events: [message({ id: eventId(10 * n + 1), timestamp: stamp(n), source: 'user' }, { text: ['hello'] })] })),
    { sessionApiKeys: [KEY] },
  );
  for (const [n, id] of IDS.entries())
    writeConversationState(server.root, id, { createdAt: stamp(n), updatedAt: stamp(n + 10), title: `Conversation ${n + 1}` });
});
afterAll(() => server.stop());

interface Outcome {
  firstPage: { items: { id: string }[]; next_page_id: string | null };
  count: number;
  all: { id: string }[];
  one: { id: string; title: string; agent: { llm: { api_key: string } } };
  unknown: { error: string; status: number };
  batch: ({ id: string } | null)[];
  frames: { id: string; kind: string; key?: string }[];
  errors: string[];
}

/** Runs the published client; `whenConnected` runs once its socket has received its first frame. */
function runPublishedLiveClient(plan: object, whenConnected: () => void): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'support', 'published-live-client.mjs'), JSON.stringify(plan)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill(), 60_000);
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.stdout.on('data', (chunk) => {
      const before = stdout;
      stdout += String(chunk);
      if (!before.includes('connected\n') && stdout.includes('connected\n')) whenConnected();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code === 0) resolve(JSON.parse(last) as Outcome);
      else reject(new Error(`the published client exited ${code}: ${stderr}`));
    });
  });
}

test('ConversationManager lists, counts and gets; WebSocketCallbackClient receives the state, then appended events in order', async () => {
  const hex = IDS[0]!.replaceAll('-', '');
  const appended = [1, 2, 3].map((n) => message({ id: eventId(900 + n), timestamp: stamp(40 + n), source: 'agent' }, { text: [`live ${n}`] }));
  const outcome = await runPublishedLiveClient(
    { host: server.url, apiKey: KEY, conversationId: IDS[0], unknownId: conversationId(77), expectFrames: 4 },
    () => {
      for (const [n, event] of appended.entries()) {
        writeFileSync(path.join(server.root, hex, 'events', eventFileName(1 + n, event.id as string)), serializeEvent(event));
      }
    },
  );

  expect(outcome.count).toBe(3);
  expect(outcome.firstPage.items.map((item) => item.id)).toEqual([IDS[2], IDS[1]]);
  expect(outcome.firstPage.next_page_id).toBe(IDS[0]!.replaceAll('-', ''));
  expect(outcome.all.map((item) => item.id)).toEqual([IDS[2], IDS[1], IDS[0]]);
  expect(outcome.one).toMatchObject({ id: IDS[0], title: 'Conversation 1', agent: { llm: { api_key: '**********' } } });
  expect(outcome.unknown.status).toBe(404);
  expect(outcome.batch.map((item) => item?.id ?? null)).toEqual([IDS[0], null]);

  expect(outcome.frames[0]).toMatchObject({ kind: 'ConversationStateUpdateEvent', key: 'full_state' });
  expect(outcome.frames.slice(1).map((frame) => frame.id)).toEqual(appended.map((event) => event.id));
  expect(outcome.errors).toEqual([]);
  const everything = JSON.stringify(outcome);
  for (const secret of STORED_SECRETS) expect(everything).not.toContain(secret);
});
