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

export interface SqliteDatabase extends SqlDatabase {
  /**
   * Runs `work` in this connection's turn, outside any transaction: for a write another
   * connection to the same file makes (text-index.ts's thread), which would otherwise wait
   * for SQLite's lock on this thread, or make this one wait.
   */
  turn<T>(work: () => Promise<T>): Promise<T>;
}

export function sqliteDatabase(connection: BetterSqlite3.Database): SqliteDatabase {
  const prepared = new Map<string, Positional>();
  const positionalOf = (text: string): Positional => {
    let positional = prepared.get(text);
    if (!positional) {
      positional = positionalStatement(connection, text);
      prepared.set(text, positional);
    }
    return positional;
  };
  const rows = <Row extends object>({ text, values }: Statement): Row[] => {
    const { statement, order } = positionalOf(text);
    return (statement.all(bound(values, order)) as Record<string, unknown>[]).map(exactIntegers) as Row[];
  };
  const run = ({ text, values }: Statement): number => {
    const { statement, order } = positionalOf(text);
    if (statement.reader) return statement.all(bound(values, order)).length;
    return statement.run(bound(values, order)).changes;
  };
  // One transaction at a time on this connection: each waits for the one before to end.
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const result = turn.then(work);
    turn = result.catch(() => undefined);
    return result;
  };
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
      return inTurn(async () => {
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
    },
    turn: inTurn,
    async close() {
      await turn;
      connection.close();
    },
  };
}

/**
 * A statement written with numbered placeholders (`?1`, dialect.ts), prepared with
 * anonymous ones: better-sqlite3 binds `?1` only by name, from an object keyed by number,
 * and building that object and looking up each of its keys cost a long INSERT more than
 * SQLite's own work. `order` says which value each `?` takes, so a value used twice is
 * bound twice. No statement of ours has a `?` inside a quoted literal.
 */
interface Positional {
  statement: BetterSqlite3.Statement;
  order: number[];
}

function positionalStatement(connection: BetterSqlite3.Database, text: string): Positional {
  const order = Array.from(text.matchAll(NUMBERED_PLACEHOLDER), (match) => Number(match[1]) - 1);
  const statement = connection.prepare(text.replace(NUMBERED_PLACEHOLDER, '?'));
  if (statement.reader) statement.safeIntegers(true);
  return { statement, order };
}

const NUMBERED_PLACEHOLDER = /\?(\d+)/g;

/** The values in the order of the statement's `?`s; booleans as SQLite's integers. */
function bound(values: readonly unknown[], order: readonly number[]): unknown[] {
  const inOrder = new Array<unknown>(order.length);
  for (let at = 0; at < order.length; at++) {
    const value = values[order[at]!];
    inOrder[at] = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  }
  return inOrder;
}

function exactIntegers(row: Record<string, unknown>): Record<string, unknown> {
  for (const name in row) {
    const value = row[name];
    if (typeof value === 'bigint')
      row[name] = value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER ? Number(value) : value.toString();
  }
  return row;
}
