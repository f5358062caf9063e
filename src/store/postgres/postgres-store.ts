/**
 * The event store over PostgreSQL, for servers that share one database (or read a hot
 * standby of it): the SQL store (sql/sql-store.ts) on a pool, with the catalog over the
 * same database. Every request is answered by the database, so any number of servers
 * answer alike. `npm run ingest` fills it (ingest/ingester.ts).
 */
import type { ConversationCatalog } from '../../catalog/conversation-catalog';
import type { Logger } from '../../log';
import type { SqlDatabase } from '../sql/database';
import type { PayloadForm } from '../sql/dialect';
import { SqlStore } from '../sql/sql-store';
import { DEFAULT_CONNECTION_SETTINGS, createPool, describeDatabaseError, guarded, redactedUrl, type ConnectionSettings } from './connection';
import { latestSchemaVersion, schemaVersion } from './migrations';
import { createPostgresCatalog } from './postgres-catalog';
import { postgresDatabase } from './postgres-database';

/** Why the store cannot start; the message names the database (without a password) and the fix. */
export class DatabaseStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseStartError';
  }
}

export interface PostgresStoreOptions {
  logger: Logger;
  settings?: ConnectionSettings;
  /** How often the /health counters are read again. */
  healthRefreshMs?: number;
}

export class PostgresStore extends SqlStore {
  /** The conversations catalog over the same database: what the ingester copied of `meta.json` and `base_state.json`. */
  readonly catalog: ConversationCatalog;

  constructor(database: SqlDatabase, pool: import('pg').Pool, options: PostgresStoreOptions) {
    super(database, { logger: options.logger, healthRefreshMs: options.healthRefreshMs, guard: guarded });
    this.catalog = createPostgresCatalog(pool);
  }
}

/**
 * Connects, checks that the schema is at the version this code expects, and returns the
 * store. Rejects with a DatabaseStartError when the database cannot be reached or is not
 * migrated; the server does not migrate (it may be pointed at a read-only standby).
 */
export async function openPostgresStore(databaseUrl: string, options: PostgresStoreOptions): Promise<PostgresStore> {
  const pool = createPool(databaseUrl, options.logger, options.settings ?? DEFAULT_CONNECTION_SETTINGS);
  let payloadForms: PayloadForm[];
  try {
    const version = await schemaVersion(pool);
    const expected = latestSchemaVersion();
    if (version < expected) {
      throw new DatabaseStartError(
        `The database at ${redactedUrl(databaseUrl)} has schema version ${version}; this server needs ${expected}. Run \`npm run migrate -- --database-url URL\` (or an ingest, which migrates) against the primary first.`,
      );
    }
    if (version > expected) {
      throw new DatabaseStartError(
        `The database at ${redactedUrl(databaseUrl)} has schema version ${version}, newer than this server knows (${expected}). Upgrade the server.`,
      );
    }
    const encoding = (await pool.query<{ encoding: string }>("SELECT current_setting('server_encoding') AS encoding")).rows[0]?.encoding;
    // Only a UTF8 database hands convert_from's text back byte for byte; any other has it converted twice.
    payloadForms = encoding === 'UTF8' ? ['text', 'bytea'] : ['bytea'];
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (error instanceof DatabaseStartError) throw error;
    throw new DatabaseStartError(
      `Cannot use the database at ${redactedUrl(databaseUrl)}: ${describeDatabaseError(error)}. Check that PostgreSQL is running and that --database-url (or DATABASE_URL) names it.`,
    );
  }
  const store = new PostgresStore(postgresDatabase(pool, payloadForms), pool, options);
  await store.refreshHealth();
  return store;
}
