/**
 * An event too large to be handed out whole is streamed in pieces, each read from the store when
 * the download reaches it. When the agent server replaces that event's file meanwhile, the pieces
 * left belong to another version: the download is cut (the client sees an incomplete transfer and
 * the server logs why), never finished with the first half of one version and the rest of the
 * other. A download started afterwards has the new version whole.
 */
import { readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { serializeEvent } from '../../src/fixture';
import { writeConversationState } from '../support/conversation-state';
import { eventually } from '../support/eventually';
import { conversationId, eventId, message, observation } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';

const ID = conversationId(1);
const HEX = ID.replaceAll('-', '');
const MB = 1024 * 1024;
const STAMP = (n: number) => ({ id: eventId(n), timestamp: `2026-11-01T10:00:${String(n).padStart(2, '0')}.000000` });

/**
 * Larger than what the socket buffers and the server's read-ahead hold together, so the download
 * is still reading this event's pieces from the store when the client pauses after its first chunk.
 */
const LARGE_BYTES = 48 * MB;
const FIRST = observation(STAMP(2), `first version ${'a'.repeat(LARGE_BYTES)}`);
const SECOND = observation(STAMP(2), `second version ${'b'.repeat(LARGE_BYTES + 1024)}`);

let server: LiveServer;

beforeAll(async () => {
  server = await startLiveServer([
    {
      id: ID,
      events: [
        message({ ...STAMP(1), source: 'user' }, { text: ['Print the log.'] }),
        FIRST,
        message({ ...STAMP(3), source: 'agent' }, { text: ['Done.'] }),
      ],
    },
  ]);
  writeConversationState(server.root, ID, { createdAt: '2026-11-01T10:00:00.000001', updatedAt: '2026-11-01T10:00:03.000001', title: 'Replaced' });
});

afterAll(() => server.stop());

/** The agent server's own way of replacing a file: write beside it, then rename over it. */
function replaceLargeEvent(): void {
  const events = path.join(server.root, HEX, 'events');
  const name = readdirSync(events).find((file) => file.includes(STAMP(2).id));
  if (!name) throw new Error('the large event has no file');
  writeFileSync(path.join(events, `${name}.tmp`), serializeEvent(SECOND));
  renameSync(path.join(events, `${name}.tmp`), path.join(events, name));
}

async function storedTextOfLargeEvent(): Promise<string> {
  const response = await fetch(`${server.url}/api/conversations/${ID}/events/${STAMP(2).id}`);
  expect(response.status).toBe(200);
  const event = (await response.json()) as { observation: { content: { text: string }[] } };
  return event.observation.content[0]!.text;
}

test('a large event replaced while its JSON lines export streams cuts the export, and the next export has the new version whole', async () => {
  const target = `${server.url}/api/stored-conversations/${ID}/export?format=jsonl`;
  const response = await fetch(target);
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  let received = (await reader.read()).value!.length;

  replaceLargeEvent();
  await eventually(async () => expect((await storedTextOfLargeEvent()).startsWith('second version')).toBe(true), { withinMs: 60_000 });

  const ended = await (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'complete';
        received += value.length;
      }
    } catch {
      return 'cut';
    }
  })();
  expect({ ended, shortOfTheFirstVersion: received < LARGE_BYTES }).toEqual({ ended: 'cut', shortOfTheFirstVersion: true });
  const cut = server.logs.map((line) => JSON.parse(line)).find((line) => line.message === 'response cut');
  expect(cut).toMatchObject({ level: 'error', error: 'An event of the conversation was removed or replaced while it was being exported' });

  const lines = (await (await fetch(target)).text()).split('\n').filter(Boolean);
  expect(lines).toHaveLength(3);
  expect(lines[1]).toBe(serializeEvent(SECOND));
});
