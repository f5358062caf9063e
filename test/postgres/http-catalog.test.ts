/**
 * test/catalog/catalog.test.ts again, with every server reading a PostgreSQL store filled by
 * the ingester: the catalog answers from what it copied of meta.json and base_state.json,
 * and the trajectory download is rebuilt from the rows: compared here with a directory
 * server's zip of the same conversation, and read page by page.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { createDirectoryCatalog } from '../../src/catalog';
import type { Event } from '../../src/contract';
import { eventFileName, generateConversation, serializeEvent, type StoredRecord } from '../../src/fixture';
import { createMemoryLogger } from '../../src/log';
import { createApp } from '../../src/server/app';
import { listen } from '../../src/server/listen';
import { openDirectoryStore } from '../../src/store/sqlite/indexed-directory';
import { PAGE_EVENTS } from '../../src/store/postgres/trajectory-files';
import { writeConversationState } from '../support/conversation-state';
import { conversationId } from '../support/events';
import { serveLiveServersFrom, startLiveServer } from '../support/live-server';
import { unzipWithPython } from '../support/unzip';
import { CLUSTER_TIMEOUT_MS, conversationsDirectory } from './support/database';
import { postgresBacking, startSharedCluster, stopSharedCluster } from './support/postgres-backing';

serveLiveServersFrom('postgres');
beforeAll(startSharedCluster, CLUSTER_TIMEOUT_MS);
afterAll(stopSharedCluster);
// Required after the hooks above, so that the cluster is up before the suite's own beforeAll.
require('../catalog/catalog.test');

/** More events than two pages of bodies, and three more written by hand below. */
const EVENTS = generateConversation({ events: 2 * PAGE_EVENTS + 50, seed: 'pg-trajectory' });
const [WITH_UNLISTED, PRETTY, BROKEN] = generateConversation({ events: EVENTS.length + 3, seed: 'pg-trajectory' }).slice(EVENTS.length);

async function download(baseUrl: string, id: string): Promise<Map<string, Buffer>> {
  const response = await fetch(`${baseUrl}/api/file/download-trajectory/${id}`);
  expect(response.status).toBe(200);
  return unzipWithPython(Buffer.from(await response.arrayBuffer()));
}

/** A server on the conversations directory itself, beside the PostgreSQL one. */
async function directoryServer(root: string): Promise<{ url: string; stop(): Promise<void> }> {
  const logger = createMemoryLogger();
  const store = openDirectoryStore(root, { logger });
  const running = await listen(createApp({ store, catalog: createDirectoryCatalog(root, logger), logger }), '127.0.0.1', 0);
  return {
    url: running.url,
    async stop() {
      await running.stop();
      await store.close();
    },
  };
}

test("the trajectory from PostgreSQL holds the directory server's entries but the files the database does not keep, with the stored event bytes", async () => {
  const id = conversationId(40);
  const hex = id.replaceAll('-', '');
  const server = await startLiveServer([{ id, events: EVENTS }]);
  const directory = await directoryServer(server.root);
  try {
    writeConversationState(server.root, id, { createdAt: '2026-11-01T10:00:00', updatedAt: '2026-11-02T10:00:00', title: 'Zipped' });
    const events = path.join(server.root, hex, 'events');
    const name = (index: number, event: Event) => eventFileName(index, event.id!);
    // What the ingester normalises: a property the contract does not list is removed, whitespace around the JSON trimmed.
    writeFileSync(path.join(events, name(EVENTS.length, WITH_UNLISTED!)), serializeEvent({ ...WITH_UNLISTED!, newer_field: 1 } as StoredRecord));
    writeFileSync(path.join(events, name(EVENTS.length + 1, PRETTY!)), `\n${JSON.stringify(PRETTY, null, 2)}\n`);
    // What it does not keep: an event file it cannot serve, and any file other than the two documents and the events.
    writeFileSync(path.join(events, name(EVENTS.length + 2, BROKEN!)), '{"kind": "MessageEvent", ');
    mkdirSync(path.join(server.root, hex, 'workspace'));
    writeFileSync(path.join(server.root, hex, 'workspace', 'notes.txt'), 'not kept');

    const fromDatabase = await download(server.url, id);
    const fromDirectory = await download(directory.url, id);
    const notKept = [`${hex}/events/${name(EVENTS.length + 2, BROKEN!)}`, `${hex}/workspace/`, `${hex}/workspace/notes.txt`];
    expect([...fromDirectory.keys()]).toEqual(expect.arrayContaining(notKept));
    expect([...fromDatabase.keys()]).toEqual([...fromDirectory.keys()].filter((entry) => !notKept.includes(entry)));
    expect([...fromDatabase.keys()].filter((entry) => entry.startsWith(`${hex}/events/event-`))).toHaveLength(EVENTS.length + 2);

    const unlisted = `${hex}/events/${name(EVENTS.length, WITH_UNLISTED!)}`;
    for (const [entry, bytes] of fromDatabase) {
      const stored = fromDirectory.get(entry)!;
      if (entry === unlisted) {
        const { newer_field, ...listed } = JSON.parse(stored.toString('utf8'));
        expect(newer_field).toBe(1);
        expect(JSON.parse(bytes.toString('utf8'))).toEqual(listed);
      } else if (entry.endsWith('/meta.json') || entry.endsWith('/base_state.json')) {
        // The documents are the parsed JSON written out again: the same value, redacted alike.
        expect(JSON.parse(bytes.toString('utf8'))).toEqual(JSON.parse(stored.toString('utf8')));
      } else {
        expect({ entry, text: bytes.toString('utf8') }).toEqual({ entry, text: stored.toString('utf8').trim() });
      }
    }
    expect(JSON.parse(fromDatabase.get(`${hex}/base_state.json`)!.toString('utf8')).agent.llm.api_key).toBe('**********');
    // The export's rule masks credentials and encrypted values (the MCP environment it leaves, as the reference does).
    const everything = [...fromDatabase.values()].join('\n');
    for (const secret of ['sk-plain-llm-key-0001', 'AKIAEXAMPLE0001', 'aws-secret-0001', 'gAAAAABencrypted-github-token'])
      expect(everything).not.toContain(secret);
  } finally {
    await directory.stop();
    await server.stop();
  }
});

test('event bodies are read a page at a time as the archive reaches them: the listing holds none, and at most two pages are held', async () => {
  const [listedId, readId] = [conversationId(41), conversationId(42)];
  const data = conversationsDirectory([
    { id: listedId, events: EVENTS },
    { id: readId, events: EVENTS },
  ]);
  const backing = await postgresBacking(data.root, createMemoryLogger());
  const database = new Client(backing.databaseUrl);
  await database.connect();
  try {
    const eventFiles = async (id: string) =>
      ((await backing.catalog.files(id.replaceAll('-', ''))) ?? []).filter((file) => file.relativePath.startsWith('events/event-'));
    const deleteEvents = (id: string) =>
      database.query('DELETE FROM events WHERE conversation_id = (SELECT id FROM conversations WHERE hex = $1)', [id.replaceAll('-', '')]);
    const readInOrder = async (files: readonly { read(): Promise<Buffer | undefined> }[]) => {
      const bodies: (string | undefined)[] = [];
      for (const file of files) bodies.push((await file.read())?.toString('utf8'));
      return bodies;
    };

    // Listed, then deleted before any body was read: every event reads as gone, as a file deleted from a directory does.
    const listedOnly = await eventFiles(listedId);
    expect(listedOnly).toHaveLength(EVENTS.length);
    await deleteEvents(listedId);
    expect((await readInOrder(listedOnly)).filter((body) => body !== undefined)).toEqual([]);

    // The first body read (its page read, the next one perhaps asked for already), then every event deleted: only those pages remain readable.
    const reading = await eventFiles(readId);
    expect((await reading[0]!.read())?.toString('utf8')).toBe(serializeEvent(EVENTS[0]!));
    await deleteEvents(readId);
    const rest = await readInOrder(reading.slice(1));
    const held = rest.filter((body) => body !== undefined).length;
    expect([PAGE_EVENTS - 1, 2 * PAGE_EVENTS - 1]).toContain(held);
    expect(rest.slice(0, held)).toEqual(EVENTS.slice(1, held + 1).map((event) => serializeEvent(event)));
    expect(rest.slice(held).every((body) => body === undefined)).toBe(true);
  } finally {
    await database.end();
    await backing.stop();
    data.remove();
  }
});
