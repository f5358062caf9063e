/**
 * A download that cannot be finished is cut, never ended cleanly short: a conversation
 * removed while its JSON lines export or its trajectory zip streams leaves the client with
 * an incomplete transfer (the fetch of the body fails), and the server logs why.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { writeConversationState } from '../support/conversation-state';
import { conversationId, eventId, message } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';

const ID = conversationId(1);
const EVENTS = 3_000;
let server: LiveServer;

beforeEach(async () => {
  const events = Array.from({ length: EVENTS }, (_, i) =>
    message(
      {
        id: eventId(i + 1),
        timestamp: `2026-06-02T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${String(i).padStart(6, '0')}`,
        source: 'agent',
      },
      { text: [`Step ${i}: ${'the agent reads, edits and runs the tests again. '.repeat(20)}`] },
    ),
  );
  server = await startLiveServer([{ id: ID, events }]);
  writeConversationState(server.root, ID, { createdAt: '2026-06-02T10:00:00.000001', updatedAt: '2026-06-02T10:00:00.000001' });
});

afterEach(() => server.stop());

/** Reads the first chunk, removes the conversation, then reads on: resolves with how the body ended. */
async function removedWhileRead(target: string): Promise<{ status: number; ended: 'complete' | 'cut'; bytes: number }> {
  const response = await fetch(`${server.url}${target}`);
  const reader = response.body!.getReader();
  let bytes = (await reader.read()).value?.length ?? 0;
  rmSync(path.join(server.root, ID.replaceAll('-', '')), { recursive: true, force: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { status: response.status, ended: 'complete', bytes };
      bytes += value.length;
    }
  } catch {
    return { status: response.status, ended: 'cut', bytes };
  }
}

test.each(['jsonl', 'markdown'])('a conversation removed while its %s export streams cuts the export', async (format) => {
  const read = await removedWhileRead(`/api/stored-conversations/${ID}/export?format=${format}`);
  expect({ status: read.status, ended: read.ended }).toEqual({ status: 200, ended: 'cut' });
  const cut = server.logs.map((line) => JSON.parse(line)).find((line) => line.message === 'response cut');
  expect(cut).toMatchObject({ level: 'error', error: `The conversation ${ID} was removed while it was being downloaded` });
});

test('a conversation removed while its trajectory zip streams cuts the zip', async () => {
  const read = await removedWhileRead(`/api/file/download-trajectory/${ID}`);
  expect({ status: read.status, ended: read.ended }).toEqual({ status: 200, ended: 'cut' });
});

test('a download left alone ends whole', async () => {
  const response = await fetch(`${server.url}/api/stored-conversations/${ID}/export?format=jsonl`);
  expect((await response.text()).split('\n').filter(Boolean)).toHaveLength(EVENTS);
});
