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

/** Reads the first chunk, removes the conversation, then reads on: resolves with how the body ended and what it held. */
async function removedWhileRead(target: string): Promise<{ status: number; ended: 'complete' | 'cut'; text: string }> {
  const response = await fetch(`${server.url}${target}`);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = decoder.decode((await reader.read()).value, { stream: true });
  rmSync(path.join(server.root, ID.replaceAll('-', '')), { recursive: true, force: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { status: response.status, ended: 'complete', text: text + decoder.decode() };
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { status: response.status, ended: 'cut', text };
  }
}

// An index may still hold the whole conversation when its directory goes (it answers from
// what it read): then the file is whole, which is right. What must never happen is a short
// file that ends cleanly.
test.each(['jsonl', 'markdown'])('a conversation removed while its %s export streams is whole or cut, never short', async (format) => {
  const read = await removedWhileRead(`/api/stored-conversations/${ID}/export?format=${format}`);
  expect(read.status).toBe(200);
  if (read.ended === 'cut') {
    const cut = server.logs.map((line) => JSON.parse(line)).find((line) => line.message === 'response cut');
    expect(cut).toMatchObject({ level: 'error', error: `The conversation ${ID} was removed while it was being downloaded` });
  } else if (format === 'jsonl') {
    expect(read.text.split('\n').filter(Boolean)).toHaveLength(EVENTS);
  } else {
    expect(read.text).toContain(`Step ${EVENTS - 1}:`);
  }
});

test('a conversation removed while its trajectory zip streams cuts the zip', async () => {
  const read = await removedWhileRead(`/api/file/download-trajectory/${ID}`);
  expect({ status: read.status, ended: read.ended }).toEqual({ status: 200, ended: 'cut' });
});

test('a download left alone ends whole', async () => {
  const response = await fetch(`${server.url}/api/stored-conversations/${ID}/export?format=jsonl`);
  expect((await response.text()).split('\n').filter(Boolean)).toHaveLength(EVENTS);
});
