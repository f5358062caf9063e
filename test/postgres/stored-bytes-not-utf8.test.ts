/**
 * The store reads stored bytes as UTF-8 text, which is half the traffic of bytea's hex form.
 * The ingester skips event files that are not valid UTF-8, but a row written some other way
 * (by hand, by another tool) may hold such bytes: they must still be served byte for byte,
 * in a page beside valid events, after a cursor, and by id.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { toConversationIdHex } from '../../src/fixture';
import { serializeEvent } from '../../src/fixture/layout';
import { createMemoryLogger } from '../../src/log';
import { createPool } from '../../src/store/postgres/connection';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/postgres-store';
import { conversationId, eventId, message } from '../support/events';
import { CLUSTER_TIMEOUT_MS, conversationsDirectory, ingestOnce, startLocalCluster, type LocalCluster } from './support/database';

const CONVERSATION = conversationId(1);
const HEX = toConversationIdHex(CONVERSATION);
const PLACEHOLDER = 'PLACEHOLDER';
/** `b`, two bytes that never occur in UTF-8, `a`. */
const NOT_UTF8 = Buffer.from([0x62, 0xff, 0xfe, 0x61]);

const EVENTS = [
  message({ id: eventId(1), timestamp: '2026-01-01T10:00:00', source: 'user' }, { text: ['plain text, façade'] }),
  message({ id: eventId(2), timestamp: '2026-01-01T10:00:01', source: 'agent' }, { text: [PLACEHOLDER] }),
  message({ id: eventId(3), timestamp: '2026-01-01T10:00:02', source: 'user' }, { text: ['after it'] }),
];

describe('stored bytes that are not valid UTF-8, from the PostgreSQL store', () => {
  let cluster: LocalCluster;
  let data: { root: string; remove(): void };
  let postgres: PostgresStore;
  let stored: Buffer[];

  beforeAll(async () => {
    cluster = await startLocalCluster();
    data = conversationsDirectory([{ id: CONVERSATION, events: EVENTS }]);
    const eventsDirectory = path.join(data.root, HEX, 'events');
    const files = readdirSync(eventsDirectory)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => path.join(eventsDirectory, name));
    await ingestOnce(cluster.url, data.root);
    const serialized = Buffer.from(serializeEvent(EVENTS[1]!).trim());
    const at = serialized.indexOf(PLACEHOLDER);
    const broken = Buffer.concat([serialized.subarray(0, at), NOT_UTF8, serialized.subarray(at + PLACEHOLDER.length)]);
    const pool = createPool(cluster.url, createMemoryLogger());
    const updated = await pool.query('UPDATE events SET payload = $1 WHERE event_id = $2', [broken, eventId(2)]);
    await pool.end();
    expect(updated.rowCount).toBe(1);
    stored = files.map((file) => Buffer.from(readFileSync(file, 'utf8').trim()));
    stored[1] = broken;
    postgres = await openPostgresStore(cluster.url, { logger: createMemoryLogger() });
  }, CLUSTER_TIMEOUT_MS);

  afterAll(async () => {
    await postgres?.close();
    await cluster?.stop();
    data?.remove();
  });

  it('a page holding it is every stored byte', async () => {
    for (const sortOrder of ['TIMESTAMP', 'TIMESTAMP_DESC'] as const) {
      const want = sortOrder === 'TIMESTAMP' ? stored : [...stored].reverse();
      const fromPostgres = (await postgres.search(HEX, { sortOrder, limit: 10 }))!;
      expect(fromPostgres.itemsJson.map((bytes) => Buffer.from(bytes).toString('hex'))).toEqual(want.map((bytes) => bytes.toString('hex')));
    }
  });

  it('a page after a cursor holding it is every stored byte', async () => {
    const page = (await postgres.search(HEX, { sortOrder: 'TIMESTAMP', limit: 1 }))!;
    expect(page.nextPageId).toBe(eventId(2));
    const next = (await postgres.search(HEX, { sortOrder: 'TIMESTAMP', limit: 1, pageId: page.nextPageId! }))!;
    expect(next.itemsJson.map((bytes) => Buffer.from(bytes).toString('hex'))).toEqual([stored[1]!.toString('hex')]);
    expect(next.nextPageId).toBe(eventId(3));
  });

  it('by id it is every stored byte, and its valid neighbours are too', async () => {
    for (const [index, event] of EVENTS.entries()) {
      expect(Buffer.from((await postgres.getEvent(HEX, event.id!))!).toString('hex')).toBe(stored[index]!.toString('hex'));
    }
  });
});
