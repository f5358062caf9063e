/**
 * A PostgreSQL store behind a test server, filled from the server's conversations
 * directory the way a deployment fills it: one ingest, then an ingest that follows the
 * directory, so files a test writes while the server runs arrive as they do in production.
 * One cluster per test file, started on first use; each server gets a database of its own.
 */
import { Client } from 'pg';
import type { Logger } from '../../../src/log';
import type { EventStore } from '../../../src/store/event-store';
import { createPool } from '../../../src/store/postgres/connection';
import { ingestConversations } from '../../../src/store/postgres/ingest';
import { startLocalCluster, type LocalCluster } from '../../../src/store/postgres/local-cluster';
import { openPostgresStore } from '../../../src/store/postgres/postgres-store';

let cluster: Promise<LocalCluster> | undefined;
let databases = 0;

/** Starts the shared cluster now (from a beforeAll with a long timeout: initdb takes seconds). */
export async function startSharedCluster(): Promise<void> {
  await (cluster ??= startLocalCluster());
}

/** Stops the shared cluster; call from the test file's afterAll. */
export async function stopSharedCluster(): Promise<void> {
  const started = cluster;
  cluster = undefined;
  await (await started)?.stop();
}

export interface PostgresBacking {
  store: EventStore;
  /** The database's URL, for a second server on the same data. */
  databaseUrl: string;
  stop(): Promise<void>;
}

/** A fresh database holding `root`'s conversations, followed until `stop`. */
export async function postgresBacking(root: string, logger: Logger): Promise<PostgresBacking> {
  const shared = await (cluster ??= startLocalCluster());
  const name = `server_${process.pid}_${++databases}`;
  const admin = new Client(shared.url);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const databaseUrl = shared.url.replace(/\/postgres$/, `/${name}`);
  const pool = createPool(databaseUrl, logger);
  await ingestConversations({ root, pool, logger });
  const stopFollowing = new AbortController();
  const following = ingestConversations({ root, pool, logger, follow: true, signal: stopFollowing.signal, pollMs: 50 });
  const store = await openPostgresStore(databaseUrl, { logger, healthRefreshMs: 100 });
  return {
    store,
    databaseUrl,
    async stop() {
      stopFollowing.abort();
      await following.catch(() => undefined);
      await store.close();
      await pool.end();
    },
  };
}
