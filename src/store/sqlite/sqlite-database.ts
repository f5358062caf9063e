/**
 * The SqlDatabase over one connection to the index file (better-sqlite3, which runs each
 * statement on the calling thread, in microseconds for the statements a request makes).
 * 64-bit integers are read exactly: as numbers where they fit a double, as decimal text
 * where they do not (the smallest sort key), as PostgreSQL's driver hands over bigints.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { SqlDatabase, SqlWriter } from '../sql/database';
import { SQLITE } from '../sql/dialect';
import type { Statement } from '../sql/statement';

export function sqliteDatabase(connection: BetterSqlite3.Database): SqlDatabase {
  const prepared = new Map<string, BetterSqlite3.Statement>();
  const statementOf = (text: string): BetterSqlite3.Statement => {
    let statement = prepared.get(text);
    if (!statement) {
      statement = connection.prepare(text);
      if (statement.reader) statement.safeIntegers(true);
      prepared.set(text, statement);
    }
    return statement;
  };
  const rows = <Row extends object>({ text, values }: Statement): Row[] =>
    (statementOf(text).all(...bound(values)) as Record<string, unknown>[]).map(exactIntegers) as Row[];
  const run = ({ text, values }: Statement): number => {
    const statement = statementOf(text);
    if (statement.reader) return statement.all(...bound(values)).length;
    return statement.run(...bound(values)).changes;
  };
  // One transaction at a time on this connection: each waits for the one before to end.
  let turn: Promise<unknown> = Promise.resolve();
  const writer: SqlWriter = {
    dialect: SQLITE,
    rows: async (statement) => rows(statement),
    run: async (statement) => run(statement),
  };
  return {
    dialect: SQLITE,
    payloadForms: ['bytea'],
    rows: async (statement) => rows(statement),
    run: async (statement) => run(statement),
    indexWalk: async (statement) => rows(statement),
    transaction<T>(work: (database: SqlWriter) => Promise<T>): Promise<T> {
      const result = turn.then(async () => {
        connection.exec('BEGIN IMMEDIATE');
        try {
          const value = await work(writer);
          connection.exec('COMMIT');
          return value;
        } catch (error) {
          if (connection.inTransaction) connection.exec('ROLLBACK');
          throw error;
        }
      });
      turn = result.catch(() => undefined);
      return result;
    },
    async close() {
      await turn;
      connection.close();
    },
  };
}

/**
 * The values of numbered placeholders (`?1`, dialect.ts), which better-sqlite3 binds by
 * name from one object; booleans as SQLite's integers.
 */
function bound(values: readonly unknown[]): [Record<number, unknown>] | [] {
  if (values.length === 0) return [];
  const named: Record<number, unknown> = {};
  values.forEach((value, index) => {
    named[index + 1] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  });
  return [named];
}

function exactIntegers(row: Record<string, unknown>): Record<string, unknown> {
  for (const name in row) {
    const value = row[name];
    if (typeof value === 'bigint')
      row[name] = value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER ? Number(value) : value.toString();
  }
  return row;
}
