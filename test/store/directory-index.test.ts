/**
 * The SQLite index of a conversations directory as a user meets it: kept outside the
 * directory, read again only where the directory changed across a restart, rebuilt with
 * one log line when it is of an older schema or damaged, and refused with a message that
 * names the file and the fix when it cannot be used (a newer version's, held by another
 * server). Each over HTTP or the command line, on real files.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { spawnScript } from '../../dev/process/server-process';
import type { components } from '../../src/contract';
import { generateConversation } from '../../src/fixture';
import { eventFileName, serializeEvent, writeConversation } from '../../src/fixture/layout';
import { createApp } from '../../src/server/app';
import { listen } from '../../src/server/listen';
import { createMemoryLogger } from '../../src/log';
import { openDirectoryStore } from '../../src/store/sqlite/indexed-directory';
import { conversationId, eventId, message } from '../support/events';

type EventPage = components['schemas']['EventPage'];

const ONE = conversationId(71);
const TWO = conversationId(72);
const say = (n: number, text: string) =>
  message({ id: eventId(n), timestamp: `2026-08-01T10:00:${String(n).padStart(2, '0')}`, source: 'user' }, { text: [text] });

let root: string;
let indexPath: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'directory-index-'));
  indexPath = path.join(mkdtempSync(path.join(os.tmpdir(), 'directory-index-cache-')), 'index.sqlite');
  writeConversation(root, ONE, [say(1, 'first'), say(2, 'second')]);
  writeConversation(root, TWO, [say(3, 'third')]);
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(path.dirname(indexPath), { recursive: true, force: true });
});

/** A server over `root` with its index at `indexPath`, as `npm start` builds it. */
async function serve(): Promise<{ get(target: string): Promise<{ status: number; body: unknown }>; logs: string[]; stop(): Promise<void> }> {
  const logger = createMemoryLogger();
  const store = openDirectoryStore(root, { logger, indexPath });
  const running = await listen(createApp({ store, logger, sessionApiKeys: [] }), '127.0.0.1', 0);
  return {
    logs: logger.lines,
    async get(target) {
      const response = await fetch(running.url + target);
      return { status: response.status, body: await response.json() };
    },
    async stop() {
      await running.stop();
      await store.close();
    },
  };
}

const texts = async (server: Awaited<ReturnType<typeof serve>>, id: string) =>
  ((await server.get(`/api/conversations/${id}/events/search`)).body as EventPage).items.map(
    (event) => (event as { llm_message: { content: { text: string }[] } }).llm_message.content[0]!.text,
  );

/** Every path under `directory` with its size and modification time. */
function snapshot(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .map((entry) => path.join(entry.parentPath, entry.name))
    .map((file) => `${path.relative(directory, file)} ${statSync(file).size} ${statSync(file).mtimeMs}`)
    .sort();
}

it('keeps its index outside the directory and writes nothing inside it', async () => {
  const before = snapshot(root);
  const server = await serve();
  expect(await texts(server, ONE)).toEqual(['first', 'second']);
  expect((await server.get('/api/stored-conversations')).status).toBe(200);
  await server.stop();
  expect(snapshot(root)).toEqual(before);
  expect(statSync(indexPath).size).toBeGreaterThan(0);
});

it('after a restart, serves what changed while it was stopped: files added, rewritten and removed, conversations removed', async () => {
  const first = await serve();
  expect((await first.get('/api/stored-conversations')).status).toBe(200);
  await first.stop();

  const events = path.join(root, ONE.replaceAll('-', ''), 'events');
  writeFileSync(path.join(events, eventFileName(2, eventId(4))), serializeEvent(say(4, 'added while stopped')));
  writeFileSync(path.join(events, eventFileName(0, eventId(1))), serializeEvent(say(1, 'rewritten while stopped')));
  rmSync(path.join(events, eventFileName(1, eventId(2))));
  rmSync(path.join(root, TWO.replaceAll('-', '')), { recursive: true });

  const second = await serve();
  expect(await texts(second, ONE)).toEqual(['rewritten while stopped', 'added while stopped']);
  const listing = (await second.get('/api/stored-conversations')).body as { items: { id: string; event_count: number }[] };
  expect(listing.items).toEqual([expect.objectContaining({ id: ONE, event_count: 2 })]);
  await second.stop();
});

it('an index of an older schema is rebuilt with one log line', async () => {
  await (await serve()).stop();
  // What an index of an earlier layout looks like to this version: tables, and no version it knows.
  const database = new Database(indexPath);
  database.exec('DROP TABLE events');
  database.pragma('user_version = 0');
  database.close();
  const server = await serve();
  expect(await texts(server, TWO)).toEqual(['third']);
  expect(server.logs.filter((line) => line.includes('rebuilding the conversations index'))).toHaveLength(1);
  await server.stop();
});

it('a damaged index file is rebuilt with one log line, never a crash', async () => {
  writeFileSync(indexPath, 'this is not a database, it only carries the name of one');
  const server = await serve();
  expect(await texts(server, ONE)).toEqual(['first', 'second']);
  expect(server.logs.filter((line) => line.includes('rebuilding the conversations index'))).toHaveLength(1);
  await server.stop();
});

async function startCli(): Promise<{ code: number | null; output: string }> {
  const child = spawnScript('src/cli/start.ts', ['--port', '0', '--conversations-path', root, '--index-path', indexPath], { label: 'server' });
  let output = '';
  child.child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = await Promise.race([child.exited, new Promise<undefined>((resolve) => setTimeout(resolve, 20_000))]);
  if (!exit) await child.stop(2000);
  return { code: exit?.code ?? null, output };
}

it('an index written by a newer version stops the start, naming the file and --index-path', async () => {
  const database = new Database(indexPath);
  database.pragma('user_version = 999');
  database.exec('CREATE TABLE conversations (id INTEGER)');
  database.close();
  const { code, output } = await startCli();
  expect(code).toBe(1);
  expect(output).toContain(indexPath);
  expect(output).toContain('--index-path');
  expect(output).toContain('newer version');
});

it('an index held by another running server stops the start, naming the file and --index-path', async () => {
  // The lock names a process that is running: this test's parent.
  writeFileSync(`${indexPath}.lock`, String(process.ppid));
  const { code, output } = await startCli();
  expect(code).toBe(1);
  expect(output).toContain(indexPath);
  expect(output).toContain('in use by another server');
  expect(output).toContain('--index-path');
  expect(readFileSync(`${indexPath}.lock`, 'utf8')).toBe(String(process.ppid));
});

it('removes from the cache folder the indexes of directories that are gone, but not one a running server holds', async () => {
  const cache = mkdtempSync(path.join(os.tmpdir(), 'directory-index-xdg-'));
  const previous = process.env['XDG_CACHE_HOME'];
  process.env['XDG_CACHE_HOME'] = cache;
  const folder = path.join(cache, 'agent-server-contract');
  const logger = createMemoryLogger();
  /** A directory of one conversation, served once so that its index is in the cache folder. */
  const servedOnce = async (name: string) => {
    const directory = mkdtempSync(path.join(os.tmpdir(), `${name}-`));
    writeConversation(directory, ONE, [say(1, name)]);
    const store = openDirectoryStore(directory, { logger });
    expect(await store.countAll({})).toBe(1);
    await store.close();
    return directory;
  };
  const indexesIn = () => readdirSync(folder).filter((name) => name.endsWith('.sqlite'));
  try {
    const gone = await servedOnce('gone');
    const held = await servedOnce('held');
    expect(indexesIn()).toHaveLength(2);
    const [heldIndex] = indexesIn().filter((name) => name.startsWith('held-'));
    // The lock names a process that is running: this test's parent.
    writeFileSync(path.join(folder, `${heldIndex}.lock`), String(process.ppid));
    rmSync(gone, { recursive: true });
    rmSync(held, { recursive: true });

    const store = openDirectoryStore(root, { logger });
    await store.close();
    const remaining = readdirSync(folder);
    expect(remaining.filter((name) => name.startsWith('gone-'))).toEqual([]);
    expect(remaining).toContain(heldIndex);
    expect(indexesIn().filter((name) => !name.startsWith('held-'))).toHaveLength(1);
    expect(logger.lines.filter((line) => line.includes('removed the index of a conversations directory that is gone'))).toHaveLength(1);
  } finally {
    if (previous === undefined) delete process.env['XDG_CACHE_HOME'];
    else process.env['XDG_CACHE_HOME'] = previous;
    rmSync(cache, { recursive: true, force: true });
  }
});

it('while a new index is first built, before its index by event id is, a cursor and an event asked for by id answer as they do after', async () => {
  // Read after ONE and TWO (the pass goes in order of the directories' names), and long
  // enough that ONE's answers come while it is read.
  writeConversation(root, 'd0000000-0000-4000-8000-000000000001', generateConversation({ events: 5000, seed: 'first-index-by-id' }));
  const server = await serve();
  const base = `/api/conversations/${ONE}/events`;
  const answers = async () => ({
    first: await server.get(`${base}/search?limit=1`),
    atCursor: await server.get(`${base}/search?limit=1&page_id=${eventId(2)}`),
    unknownCursor: (await server.get(`${base}/search?limit=1&page_id=${eventId(9)}`)).status,
    byId: await server.get(`${base}/${eventId(1)}`),
    unknownId: (await server.get(`${base}/${eventId(9)}`)).status,
  });
  const during = await answers();
  const index = new Database(indexPath, { readonly: true });
  const hasIndexById = () => index.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'events_by_id'").get() !== undefined;
  try {
    expect(hasIndexById()).toBe(false);
    expect((during.first.body as EventPage).next_page_id).toBe(eventId(2));
    expect((during.atCursor.body as EventPage).items).toEqual([expect.objectContaining({ id: eventId(2) })]);
    expect(during.byId.body).toEqual(expect.objectContaining({ id: eventId(1) }));
    // The whole first pass, after which the index by id is built.
    expect((await server.get('/api/stored-conversations')).status).toBe(200);
    expect(hasIndexById()).toBe(true);
    expect(await answers()).toEqual(during);
  } finally {
    index.close();
    await server.stop();
  }
});
