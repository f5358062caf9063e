/**
 * A server killed, or stopped, while it builds its index for the first time: the next start
 * on the same index file serves the whole conversation, every event once, and the search
 * across conversations counts it whole. The conversation is long enough to be written in
 * several transactions, so a kill can land between two of them; a stop closes the store in
 * the middle of its first pass, which must not leave the index marked complete.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateConversation, writeConversation } from '../../src/fixture';
import { type SpawnedServer, spawnServer } from '../../dev/process/server-process';
import { conversationId } from '../support/events';

const EVENTS = 2600;
const id = conversationId(31);
let root: string;
let indexPath: string;
let server: SpawnedServer | undefined;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'interrupted-index-'));
  indexPath = `${root}.index.sqlite`;
  writeConversation(root, id, generateConversation({ events: EVENTS, seed: 'interrupted-first-index' }));
});

function removeIndex(): void {
  for (const suffix of ['', '-wal', '-shm', '.lock']) rmSync(`${indexPath}${suffix}`, { force: true });
}

afterEach(async () => {
  await server?.stop(5000);
  server = undefined;
  removeIndex();
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

async function started(): Promise<SpawnedServer> {
  const spawned = await spawnServer({ conversationsPath: root, args: ['--index-path', indexPath] });
  for (;;) {
    if (spawned.child.exitCode !== null) throw new Error('the server exited before it listened');
    const alive = await fetch(`${spawned.url}/alive`).catch(() => undefined);
    if (alive?.ok) return spawned;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function json(url: string): Promise<unknown> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return response.json();
}

test.each([
  ['killed', 'SIGKILL'],
  ['stopped', 'SIGTERM'],
] as const)('a first index %s while it is written is finished by the next start: every event served once, counts whole', async (_, signal) => {
  server = await started();
  // Killed once some rows are committed (the write-ahead log has grown), before or while
  // the rest is written; whichever, the next start must serve the conversation whole.
  const wal = `${indexPath}-wal`;
  const asked = fetch(`${server.url}/api/conversations/${id}/events/count`).catch(() => undefined);
  while (!(existsSync(wal) && statSync(wal).size > 1024 * 1024) && server.child.exitCode === null)
    await new Promise((resolve) => setTimeout(resolve, 5));
  server.child.kill(signal);
  await server.exited;
  await asked;

  server = await started();
  const base = `${server.url}/api/conversations/${id}/events`;
  expect(await json(`${base}/count`)).toBe(EVENTS);
  const seen: string[] = [];
  let pageId: string | null = null;
  do {
    const page = (await json(`${base}/search?limit=100${pageId ? `&page_id=${pageId}` : ''}`)) as {
      items: { id: string }[];
      next_page_id: string | null;
    };
    seen.push(...page.items.map((event) => event.id));
    pageId = page.next_page_id;
  } while (pageId !== null);
  expect(seen).toHaveLength(EVENTS);
  expect(new Set(seen).size).toBe(EVENTS);
  expect(await json(`${server.url}/api/stored-conversations/events/count`)).toBe(EVENTS);
});
