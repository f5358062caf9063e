/**
 * A throwaway PostgreSQL cluster per test file (dev/postgres/local-cluster.ts), and
 * helpers to fill it the way a user would: with the ingester, from a conversations
 * directory in the reference layout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pool } from 'pg';
import type { Event } from '../../../src/contract';
import { writeConversation } from '../../../src/fixture/layout';
import { createMemoryLogger } from '../../../src/log';
import { createPool } from '../../../src/store/postgres/connection';
import { ingestConversations, type IngestSummary } from '../../../src/store/ingest/ingester';
import { migrate } from '../../../src/store/postgres/migrations';
import { postgresDatabase } from '../../../src/store/postgres/postgres-database';
import { startLocalCluster, type LocalCluster } from '../../../dev/postgres/local-cluster';

/** Starting a cluster (initdb, start) takes a few seconds on a busy machine. */
export const CLUSTER_TIMEOUT_MS = 120_000;

export { startLocalCluster, type LocalCluster };

/** A temporary conversations directory holding `conversations`. */
export function conversationsDirectory(conversations: readonly { id: string; events: readonly Event[] }[] = []): { root: string; remove(): void } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'agent-server-pg-data-'));
  for (const conversation of conversations) writeConversation(root, conversation.id, conversation.events);
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** One ingest of `root` into the cluster's database. */
export async function ingestOnce(databaseUrl: string, root: string): Promise<IngestSummary> {
  const logger = createMemoryLogger();
  const pool: Pool = createPool(databaseUrl, logger);
  try {
    await migrate(pool);
    return await ingestConversations({ root, database: postgresDatabase(pool), logger });
  } finally {
    await pool.end();
  }
}
