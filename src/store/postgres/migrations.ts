/**
 * Versioned schema migrations (migrations/index.ts), applied in order, each in its own
 * transaction, and recorded in `schema_migrations`. Concurrent runs (several
 * ingesters starting at once) serialise on an advisory lock, so each migration is
 * applied once.
 */
import type { Pool } from 'pg';
import { MIGRATIONS } from './migrations/index';

/** An arbitrary key of this project's advisory lock. */
const MIGRATION_LOCK = 0x61677376;

/** The version the code expects the database to be at. */
export function latestSchemaVersion(): number {
  return Math.max(0, ...MIGRATIONS.map((migration) => migration.version));
}

/** Applies every migration the database lacks; returns the names applied. */
export async function migrate(pool: Pool): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const applied = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((row) => row.version));
    const done: string[] = [];
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      done.push(migration.name);
    }
    return done;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
}

/** The highest migration applied, 0 when none (or no migrations table). */
export async function schemaVersion(pool: Pool): Promise<number> {
  const table = await pool.query<{ exists: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS exists");
  if (!table.rows[0]?.exists) return 0;
  const result = await pool.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  return result.rows[0]?.version ?? 0;
}
