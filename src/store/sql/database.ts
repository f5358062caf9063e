/**
 * What the store and the ingester ask of a database, whichever it is: rows of a statement,
 * a statement's count of changed rows, and a transaction. sqlite/sqlite-database.ts and
 * postgres/postgres-database.ts answer it.
 */
import type { PayloadForm, SqlDialect } from './dialect';
import type { Statement } from './statement';

export interface SqlDatabase {
  readonly dialect: SqlDialect;
  /** The payload forms to try, in order: a later one when the earlier fails on bytes that are not UTF-8. */
  readonly payloadForms: readonly PayloadForm[];
  /** Integer columns come back as numbers where they fit, and as decimal text where they may not (64-bit keys). */
  rows<Row extends object>(statement: Statement): Promise<Row[]>;
  /** Runs a statement; the number of rows it changed. */
  run(statement: Statement): Promise<number>;
  /**
   * Rows of a statement that walks an ordered index from a key: PostgreSQL is told not to
   * prefer a scan of the table, which its estimates sometimes would.
   */
  indexWalk<Row extends object>(statement: Statement): Promise<Row[]>;
  /** Runs `work` in one transaction on one connection; readers see all of it or none. */
  transaction<T>(work: (database: SqlWriter) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** What a transaction can do: the same rows and runs, on its own connection. */
export type SqlWriter = Pick<SqlDatabase, 'dialect' | 'rows' | 'run'>;

/** Whether the database refused to read stored bytes as UTF-8 text (PostgreSQL's SQLSTATE 22021). */
export function isNotUtf8(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === '22021';
}
