/**
 * The SqlDatabase over a PostgreSQL pool. Bigint columns arrive as decimal text (the
 * driver's default), as the statements expect of 64-bit keys.
 */
import type { Pool, PoolClient } from 'pg';
import type { SqlDatabase, SqlWriter } from '../sql/database';
import { type PayloadForm, POSTGRES } from '../sql/dialect';
import type { Statement } from '../sql/statement';

export function postgresDatabase(pool: Pool, payloadForms: readonly PayloadForm[] = ['bytea']): SqlDatabase {
  return {
    dialect: POSTGRES,
    payloadForms,
    async rows<Row extends object>(statement: Statement) {
      return (await pool.query<Row>(statement)).rows;
    },
    async run(statement) {
      return (await pool.query(statement)).rowCount ?? 0;
    },
    async indexWalk<Row extends object>(statement: Statement) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN READ ONLY; SET LOCAL enable_seqscan = off');
        const result = await client.query<Row>(statement);
        await client.query('COMMIT');
        return result.rows;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(writerOn(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

function writerOn(client: PoolClient): SqlWriter {
  return {
    dialect: POSTGRES,
    async rows<Row extends object>(statement: Statement) {
      return (await client.query<Row>(statement)).rows;
    },
    async run(statement) {
      return (await client.query(statement)).rowCount ?? 0;
    },
  };
}
