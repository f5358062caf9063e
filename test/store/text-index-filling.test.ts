/**
 * The trigram index filled behind a first index long enough to be filled on a thread of its
 * own (store/sqlite/text-index.ts), over HTTP against the server process: `text` finds
 * every event that holds a word once the index is built, wherever its row lies; a stop
 * while the filling runs is a clean exit; the next start on the same index file finishes
 * the filling; an event appended afterwards is found too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { components } from '../../src/contract';
import { eventFileName, generateConversation, serializeEvent, toConversationIdHex, writeConversation } from '../../src/fixture';
import { type ServerProcess, startServerProcess } from '../../dev/soak/server-process';
import { eventually } from '../support/eventually';
import { conversationId, eventId, message } from '../support/events';

type StoredEventPage = components['schemas']['StoredEventPage'];

/** Past the rows from which the filling takes a thread of its own. */
const EVENTS = 6000;
const id = conversationId(71);
/** Where the marked messages sit among the generated events: the first rows, the middle, the last. */
const MARKED_AT = [3, EVENTS / 2, EVENTS - 2];
const MARK = 'quokka-lantern';

let root: string;
let indexPath: string;
let server: ServerProcess | undefined;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'text-index-filling-'));
  indexPath = `${root}.index.sqlite`;
  const events = generateConversation({ events: EVENTS, seed: 'text-index-filling' });
  for (const [n, at] of MARKED_AT.entries()) {
    const { timestamp } = events[at] as { timestamp: string };
    events[at] = message({ id: eventId(900 + n), timestamp, source: 'user' }, { text: [`Feed the ${MARK.toUpperCase()} number ${n}`] });
  }
  writeConversation(root, id, events);
});

afterAll(async () => {
  await server?.stop(5000);
  rmSync(root, { recursive: true, force: true });
  for (const suffix of ['', '-wal', '-shm', '.lock']) rmSync(`${indexPath}${suffix}`, { force: true });
});

const start = () => startServerProcess({ conversationsPath: root, args: ['--index-path', indexPath] });

async function markedIds(needle: string): Promise<string[]> {
  const response = await fetch(`${server!.url}/api/stored-conversations/events/search?text=${encodeURIComponent(needle)}&limit=100`);
  expect(response.status).toBe(200);
  return ((await response.json()) as StoredEventPage).items.map((hit) => hit.event.id!);
}

const textIndexBuilt = () =>
  eventually(() => expect(server!.stderr.some((line) => line.includes('"text index built"'))).toBe(true), { withinMs: 60_000 });

test('a stop while the index fills exits cleanly, and the next start finishes it: every marked event is found wherever its row lies', async () => {
  server = await start();
  // The first page answers once the conversation is stored; the filling starts then.
  expect((await fetch(`${server.url}/api/conversations/${id}/events/search?limit=1`)).status).toBe(200);
  expect(await server.stop(30_000)).toEqual({ code: 0, signal: null });

  server = await start();
  await textIndexBuilt();
  expect(await markedIds(MARK)).toEqual(MARKED_AT.map((_, n) => eventId(900 + n)));
  expect(await markedIds('no-such-quokka')).toEqual([]);
});

test('an event appended after the filling is found as well', async () => {
  const appended = message({ id: eventId(999), timestamp: '2099-01-01T00:00:00', source: 'agent' }, { text: [`one more ${MARK}`] });
  writeFileSync(path.join(root, toConversationIdHex(id), 'events', eventFileName(EVENTS, eventId(999))), serializeEvent(appended));
  await eventually(async () => expect(await markedIds(MARK)).toEqual([...MARKED_AT.map((_, n) => eventId(900 + n)), eventId(999)]));
});
