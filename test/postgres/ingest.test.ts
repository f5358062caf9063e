/**
 * The ingester as users run it: `npm run ingest` over a conversations directory. Running
 * it twice adds nothing; killed with SIGKILL mid-way and run again it loses and doubles
 * nothing; it reports progress and the files it skipped; with --follow, appended events,
 * new conversations and deletions reach the database within a second.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { generateConversation, toConversationIdHex } from '../../src/fixture';
import { serializeEvent, writeConversation } from '../../src/fixture/layout';
import { createMemoryLogger } from '../../src/log';
import { spawnScript } from '../../dev/process/server-process';
import { createPool } from '../../src/store/postgres/connection';
import { ingestConversations } from '../../src/store/ingest/ingester';
import { postgresDatabase } from '../../src/store/postgres/postgres-database';
import { migrate } from '../../src/store/postgres/migrations';
import { MIGRATIONS } from '../../src/store/postgres/migrations/index';
import { openPostgresStore } from '../../src/store/postgres/postgres-store';
import { conversationId, eventId, message } from '../support/events';
import { STORED_SECRETS, writeConversationState } from '../support/conversation-state';
import { eventually } from '../support/eventually';
import { CLUSTER_TIMEOUT_MS, conversationsDirectory, ingestOnce, startLocalCluster, type LocalCluster } from './support/database';
import { storedItems } from '../support/stored-page';

function runIngestCli(args: string[]): { done: Promise<{ code: number | null; stdout: string; stderr: string }>; kill(): void } {
  const child = spawnScript('src/cli/ingest.ts', args, { label: 'ingest' });
  let stdout = '';
  let stderr = '';
  child.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = child.exited.then(({ code }) => ({ code, stdout, stderr }));
  return { done, kill: () => child.child.kill('SIGKILL') };
}

describe('npm run ingest', () => {
  let cluster: LocalCluster;
  let client: Client;

  beforeAll(async () => {
    cluster = await startLocalCluster();
    client = new Client(cluster.url);
    await client.connect();
  }, CLUSTER_TIMEOUT_MS);

  afterAll(async () => {
    await client?.end();
    await cluster?.stop();
  });

  async function storedCounts(): Promise<{ events: number; counted: number; conversations: number }> {
    const result = await client.query<{ events: string; counted: string; conversations: string }>(
      'SELECT (SELECT count(*) FROM events) AS events, (SELECT coalesce(sum(event_count), 0) FROM conversations) AS counted, (SELECT count(*) FROM conversations) AS conversations',
    );
    const row = result.rows[0]!;
    return { events: Number(row.events), counted: Number(row.counted), conversations: Number(row.conversations) };
  }

  async function connectedClient(): Promise<Client> {
    const connected = new Client(cluster.url);
    await connected.connect();
    return connected;
  }

  async function emptyDatabase(): Promise<void> {
    // Whatever the migrations made, extensions included: the next ingest migrates from nothing.
    await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  }

  it('copies every event once, names skipped files, and a second run adds nothing', async () => {
    await emptyDatabase();
    const data = conversationsDirectory([
      { id: conversationId(1), events: generateConversation({ events: 300, seed: 'ingest-1' }) },
      { id: conversationId(2), events: generateConversation({ events: 50, seed: 'ingest-2' }) },
    ]);
    const events = path.join(data.root, toConversationIdHex(conversationId(2)), 'events');
    writeFileSync(path.join(events, `event-00050-${eventId(50)}.json`), 'not json');
    try {
      const first = await runIngestCli(['--conversations-path', data.root, '--database-url', cluster.url]).done;
      expect(first.code).toBe(0);
      expect(first.stdout).toContain('ingest: 2 conversations, 350 events stored by this run, 1 event files skipped');
      expect(first.stdout).toContain(
        `skipped ${toConversationIdHex(conversationId(2))}/events/event-00050-${eventId(50)}.json: not valid JSON (truncated or corrupt)`,
      );
      expect(first.stderr).toMatch(/ingest: 351\/351 event files \(\d+ events\/s\), 2\/2 conversations, 1 skipped/);
      expect(await storedCounts()).toEqual({ events: 350, counted: 350, conversations: 2 });

      const second = await runIngestCli(['--conversations-path', data.root, '--database-url', cluster.url]).done;
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('ingest: 2 conversations, 0 events stored by this run, 1 event files skipped');
      expect(await storedCounts()).toEqual({ events: 350, counted: 350, conversations: 2 });
    } finally {
      data.remove();
    }
  });

  it('killed with SIGKILL mid-way and run again: nothing lost, nothing doubled', async () => {
    await emptyDatabase();
    const conversations = Array.from({ length: 4 }, (_, i) => ({
      id: conversationId(10 + i),
      events: generateConversation({ events: 2500, seed: `kill-${i}` }),
    }));
    const data = conversationsDirectory(conversations);
    try {
      const run = runIngestCli(['--conversations-path', data.root, '--database-url', cluster.url]);
      let killedAt = 0;
      await eventually(
        async () => {
          const exists = await client.query<{ ready: boolean }>("SELECT to_regclass('events') IS NOT NULL AS ready");
          if (!exists.rows[0]!.ready) throw new Error('no table yet');
          killedAt = (await storedCounts()).events;
          if (killedAt === 0) throw new Error('nothing stored yet');
        },
        { withinMs: 60_000, everyMs: 5 },
      );
      run.kill();
      const killed = await run.done;
      expect(killed.code).toBeNull();
      expect(killedAt).toBeLessThan(10_000);

      const again = await runIngestCli(['--conversations-path', data.root, '--database-url', cluster.url]).done;
      expect(again.code).toBe(0);
      expect(await storedCounts()).toEqual({ events: 10_000, counted: 10_000, conversations: 4 });
      const store = await openPostgresStore(cluster.url, { logger: createMemoryLogger() });
      try {
        for (const conversation of conversations) {
          const page = await store.search(toConversationIdHex(conversation.id), { sortOrder: 'TIMESTAMP', limit: 5000 });
          expect(
            storedItems(page!)
              .map((item) => JSON.parse(item).id)
              .sort(),
          ).toEqual(conversation.events.map((event) => event.id).sort());
        }
      } finally {
        await store.close();
      }
    } finally {
      data.remove();
    }
  });

  it('--follow: appended events, a truncated file completed later, new conversations and deletions arrive within a second', async () => {
    await emptyDatabase();
    const first = conversationId(20);
    const events = generateConversation({ events: 40, seed: 'follow' });
    const data = conversationsDirectory([{ id: first, events: events.slice(0, 20) }]);
    const logger = createMemoryLogger();
    const pool = createPool(cluster.url, logger);
    const stop = new AbortController();
    const following = migrate(pool).then(() =>
      ingestConversations({ root: data.root, database: postgresDatabase(pool), logger, follow: true, signal: stop.signal }),
    );
    const store = await (async () => {
      await eventually(async () => expect((await storedCounts()).events).toBe(20), { withinMs: 30_000 });
      return openPostgresStore(cluster.url, { logger });
    })();
    const hex = toConversationIdHex(first);
    const idsOf = async (conversationHex: string) =>
      (await store.search(conversationHex, { sortOrder: 'TIMESTAMP', limit: 1000 }))?.itemsJson.flatMap((piece) =>
        (JSON.parse(`[${piece}]`) as { id: string }[]).map((event) => event.id),
      );
    try {
      const eventsDirectory = path.join(data.root, hex, 'events');
      const appended = events[20]!;
      writeFileSync(path.join(eventsDirectory, `event-00020-${appended.id}.json`), serializeEvent(appended));
      await eventually(async () => expect(await idsOf(hex)).toContain(appended.id), { withinMs: 1000 });

      // A writer caught half-way: skipped at first, served once complete.
      const late = events[21]!;
      const latePath = path.join(eventsDirectory, `event-00021-${late.id}.json`);
      const text = serializeEvent(late);
      writeFileSync(latePath, text.slice(0, 10));
      await eventually(async () => expect((await client.query('SELECT 1 FROM skipped_files')).rowCount).toBe(1), { withinMs: 1000 });
      appendFileSync(latePath, text.slice(10));
      await eventually(async () => expect(await idsOf(hex)).toContain(late.id), { withinMs: 1000 });

      const second = conversationId(21);
      const secondEvent = message({ id: eventId(1), timestamp: '2026-01-01T10:00:00', source: 'user' }, { text: ['hello'] });
      writeConversation(data.root, second, [secondEvent]);
      await eventually(async () => expect(await idsOf(toConversationIdHex(second))).toEqual([eventId(1)]), { withinMs: 1000 });

      rmSync(path.join(eventsDirectory, `event-00020-${appended.id}.json`));
      await eventually(async () => expect(await idsOf(hex)).not.toContain(appended.id), { withinMs: 1000 });
      rmSync(path.join(data.root, toConversationIdHex(second)), { recursive: true });
      await eventually(async () => expect(await idsOf(toConversationIdHex(second))).toBeUndefined(), { withinMs: 1000 });
      mkdirSync(path.join(data.root, 'not-a-conversation'));
    } finally {
      stop.abort();
      await following;
      await store.close();
      await pool.end();
      data.remove();
    }
  });

  it('--follow: meta.json and base_state.json are copied for the catalog, and copied again when they change', async () => {
    await emptyDatabase();
    const id = conversationId(30);
    const data = conversationsDirectory([{ id, events: generateConversation({ events: 3, seed: 'documents' }) }]);
    writeConversationState(data.root, id, { status: 'running', createdAt: '2026-11-01T10:00:00', updatedAt: '2026-11-02T10:00:00', title: 'First' });
    const logger = createMemoryLogger();
    const pool = createPool(cluster.url, logger);
    const stop = new AbortController();
    const following = migrate(pool).then(() =>
      ingestConversations({ root: data.root, database: postgresDatabase(pool), logger, follow: true, signal: stop.signal }),
    );
    const hex = toConversationIdHex(id);
    const stateFile = path.join(data.root, hex, 'base_state.json');
    try {
      await eventually(async () => expect((await storedCounts()).events).toBe(3), { withinMs: 30_000 });
      const store = await openPostgresStore(cluster.url, { logger });
      try {
        await eventually(async () => expect(await store.catalog.get(hex, false)).toMatchObject({ title: 'First', execution_status: 'running' }), {
          withinMs: 1000,
        });
        // Stored as saved, masked when served.
        const stored = await client.query<{ state: string }>('SELECT state FROM conversation_documents');
        expect(stored.rows[0]!.state).toContain(STORED_SECRETS[0]);
        expect(JSON.stringify(await store.catalog.state(hex))).not.toContain(STORED_SECRETS[0]);

        writeConversationState(data.root, id, {
          status: 'finished',
          createdAt: '2026-11-01T10:00:00',
          updatedAt: '2026-11-03T10:00:00',
          title: 'Second',
        });
        await eventually(async () => expect(await store.catalog.get(hex, false)).toMatchObject({ title: 'Second', execution_status: 'finished' }), {
          withinMs: 1000,
        });
        expect(await store.catalog.count('finished')).toBe(1);
        // A state file that no longer parses drops the entry, as the directory catalog drops it.
        writeFileSync(stateFile, '{"half":');
        await eventually(async () => expect(await store.catalog.count()).toBe(0), { withinMs: 1000 });
        expect(await store.catalog.state(hex)).toBeUndefined();
        rmSync(stateFile);
        await eventually(async () => expect(await store.catalog.count()).toBe(1), { withinMs: 1000 });
        expect(await store.catalog.get(hex, false)).toBeUndefined();
      } finally {
        await store.close();
      }
    } finally {
      stop.abort();
      await following;
      await pool.end();
      data.remove();
    }
  });

  it('a database filled before the append numbering is numbered in file order by the migration, and later appends come after', async () => {
    await emptyDatabase();
    const admin = await connectedClient();
    try {
      // The schema as version 3 left it, and events written under it.
      for (const migration of MIGRATIONS.filter((migration) => migration.version <= 3)) await admin.query(migration.sql);
      await admin.query(
        'CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      await admin.query("INSERT INTO schema_migrations (version, name) VALUES (1, 'a'), (2, 'b'), (3, 'c')");
      for (const [conversation, hex] of [
        [1, 'a'.repeat(32)],
        [2, 'b'.repeat(32)],
      ] as const) {
        await admin.query('INSERT INTO conversations (hex) OVERRIDING SYSTEM VALUE VALUES ($1)', [hex]);
        // Inserted out of file order: the numbering follows the files, not the insertion.
        for (const position of [2, 0, 1])
          await admin.query(
            "INSERT INTO events (conversation_id, position, file_name, event_id, kind, sort_micros, payload) VALUES ($1, $2::bigint, 'f' || $2::text, 'e' || $2::text, 'MessageEvent', 0, '{}')",
            [conversation, position],
          );
      }
      const logger = createMemoryLogger();
      const pool = createPool(cluster.url, logger);
      try {
        expect(await migrate(pool)).toEqual(MIGRATIONS.filter((migration) => migration.version > 3).map((migration) => migration.name));
      } finally {
        await pool.end();
      }
      const numbered = async () =>
        (
          await admin.query<{ conversation_id: number; position: string; ingest_seq: string }>(
            'SELECT conversation_id, position, ingest_seq FROM events ORDER BY ingest_seq',
          )
        ).rows.map((row) => `${row.conversation_id}:${row.position}`);
      expect(await numbered()).toEqual(['1:0', '1:1', '1:2', '2:0', '2:1', '2:2']);
      await admin.query(
        "INSERT INTO events (conversation_id, position, file_name, event_id, kind, sort_micros, payload) VALUES (1, 3, 'f3', 'e3', 'MessageEvent', 0, '{}')",
      );
      expect((await numbered()).at(-1)).toBe('1:3');
    } finally {
      await admin.end();
    }
  });

  it('a large event stored before events were kept in pieces is exported whole after the migration', async () => {
    await emptyDatabase();
    const large = message({ id: eventId(1), timestamp: '2026-11-01T10:00:01.000000', source: 'user' }, { text: ['x'.repeat(2_500_000)] });
    const data = conversationsDirectory([{ id: conversationId(40), events: [large] }]);
    try {
      await ingestOnce(cluster.url, data.root);
      // The database as the release before the pieces left it: the same rows, no pieces.
      await client.query('DROP TABLE event_pieces');
      await client.query("DELETE FROM schema_migrations WHERE name = '0006-event-pieces'");
      const pool = createPool(cluster.url, createMemoryLogger());
      try {
        expect(await migrate(pool)).toEqual(['0006-event-pieces']);
      } finally {
        await pool.end();
      }
      const store = await openPostgresStore(cluster.url, { logger: createMemoryLogger() });
      try {
        const exported: Buffer[] = [];
        for await (const event of (await store.exportEvents(toConversationIdHex(conversationId(40))))!) {
          if (Buffer.isBuffer(event)) exported.push(event);
          else for await (const piece of event.pieces()) exported.push(piece);
        }
        expect(JSON.parse(Buffer.concat(exported).toString('utf8'))).toEqual(large);
      } finally {
        await store.close();
      }
    } finally {
      data.remove();
    }
  });

  it('reports a database that is not there, without a stack trace', async () => {
    const data = conversationsDirectory([]);
    try {
      const result = await runIngestCli(['--conversations-path', data.root, '--database-url', 'postgres://nobody:secret@127.0.0.1:1/none']).done;
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('ingest: cannot use the database at postgres://nobody:***@127.0.0.1:1/none');
      expect(result.stderr).toContain('ECONNREFUSED');
      expect(result.stderr).not.toContain('secret');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      data.remove();
    }
  });

  it('runs again over what another ingest of the same data stored', async () => {
    await emptyDatabase();
    const data = conversationsDirectory([{ id: conversationId(30), events: generateConversation({ events: 30, seed: 'again' }) }]);
    try {
      expect((await ingestOnce(cluster.url, data.root)).eventsStored).toBe(30);
      expect((await ingestOnce(cluster.url, data.root)).eventsStored).toBe(0);
    } finally {
      data.remove();
    }
  });
});
