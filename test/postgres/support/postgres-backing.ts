/**
 * A PostgreSQL store behind a test server, filled from the server's conversations
 * directory by the ingester. A deployment's follower brings a write in within a second
 * (test/postgres/ingest.test.ts); here the ingester looks once more before every request,
 * so that suites written for the directory store, which may write a file and read it back
 * at once, see their writes as that store does.
 * One cluster per test file, started on first use; each server gets a database of its own.
 */
import { Client } from 'pg';
import type { ConversationCatalog } from '../../../src/catalog';
import type { Logger } from '../../../src/log';
import type { EventStore } from '../../../src/store/event-store';
import { createPool } from '../../../src/store/postgres/connection';
import { createIngester, type DirectoryIngester } from '../../../src/store/ingest/ingester';
import { migrate } from '../../../src/store/postgres/migrations';
import { postgresDatabase } from '../../../src/store/postgres/postgres-database';
import { startLocalCluster, type LocalCluster } from '../../../dev/postgres/local-cluster';
import { openPostgresStore, type PostgresStore } from '../../../src/store/postgres/postgres-store';

let cluster: Promise<LocalCluster> | undefined;
let databases = 0;

function sharedCluster(): Promise<LocalCluster> {
  if (!cluster) cluster = startLocalCluster();
  return cluster;
}

/** Starts the shared cluster now (from a beforeAll with a long timeout: initdb takes seconds). */
export async function startSharedCluster(): Promise<void> {
  await sharedCluster();
}

/** Stops the shared cluster; call from the test file's afterAll. */
export async function stopSharedCluster(): Promise<void> {
  const started = cluster;
  cluster = undefined;
  await (await started)?.stop();
}

export interface PostgresBacking {
  store: EventStore;
  /** The catalog over the same database, caught up as the store is. */
  catalog: ConversationCatalog;
  /** The database's URL, for a second server on the same data. */
  databaseUrl: string;
  stop(): Promise<void>;
}

/** A fresh database holding `root`'s conversations, kept current until `stop`. */
export async function postgresBacking(root: string, logger: Logger): Promise<PostgresBacking> {
  const shared = await sharedCluster();
  const name = `server_${process.pid}_${++databases}`;
  const admin = new Client(shared.url);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const databaseUrl = shared.url.replace(/\/postgres$/, `/${name}`);
  const pool = createPool(databaseUrl, logger);
  await migrate(pool);
  const ingester = createIngester({ root, database: postgresDatabase(pool), logger, follow: true });
  await ingester.pass();
  const postgres = await openPostgresStore(databaseUrl, { logger, healthRefreshMs: 100 });
  const passNow = passesOf(ingester);
  const store = caughtUp(postgres, passNow);
  return {
    store,
    catalog: caughtUpCatalog(postgres.catalog, passNow),
    databaseUrl,
    async stop() {
      await store.close();
      ingester.close();
      await pool.end();
    },
  };
}

/** Runs an ingest pass after any already under way (one at a time). */
function passesOf(ingester: DirectoryIngester): () => Promise<void> {
  let passes: Promise<void> = Promise.resolve();
  return () => {
    passes = passes.catch(() => undefined).then(() => ingester.pass());
    return passes;
  };
}

/** The catalog, with an ingest pass before each operation. */
function caughtUpCatalog(catalog: ConversationCatalog, passNow: () => Promise<void>): ConversationCatalog {
  return {
    search: (query) => passNow().then(() => catalog.search(query)),
    count: (status) => passNow().then(() => catalog.count(status)),
    get: (hex, includeSkills) => passNow().then(() => catalog.get(hex, includeSkills)),
    state: (hex) => passNow().then(() => catalog.state(hex)),
    knownSecrets: (hex) => passNow().then(() => catalog.knownSecrets(hex)),
    files: (hex) => passNow().then(() => catalog.files(hex)),
  };
}

/** The store, with an ingest pass before each operation. */
function caughtUp(store: PostgresStore, passNow: () => Promise<void>): EventStore {
  return {
    async search(hex, criteria) {
      await passNow();
      return store.search(hex, criteria);
    },
    async count(hex, filters) {
      await passNow();
      return store.count(hex, filters);
    },
    async getEvent(hex, eventId) {
      await passNow();
      return store.getEvent(hex, eventId);
    },
    async listConversations() {
      await passNow();
      return store.listConversations();
    },
    async searchAll(criteria) {
      await passNow();
      return store.searchAll(criteria);
    },
    async countAll(filters) {
      await passNow();
      return store.countAll(filters);
    },
    async exportEvents(hex) {
      await passNow();
      return store.exportEvents(hex);
    },
    feed: {
      searchEach: (hex, criteria) => passNow().then(() => store.feed.searchEach(hex, criteria)),
      appendedAfter: (hex, position, limit) => passNow().then(() => store.feed.appendedAfter(hex, position, limit)),
      storedAfter: (hex, storageIndex, limit) => passNow().then(() => store.feed.storedAfter(hex, storageIndex, limit)),
    },
    health: () => store.health(),
    close: () => store.close(),
  };
}
