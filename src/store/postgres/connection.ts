/**
 * The connection pool and its limits, and how a database failure is told apart from a
 * fault of ours. docs/deployment.md lists the settings.
 */
import { DatabaseError, Pool, type PoolConfig } from 'pg';
import type { Logger } from '../../log';
import { StoreUnavailableError } from '../store-unavailable';

export interface ConnectionSettings {
  /** Connections one process holds at most. */
  poolSize: number;
  /** How long to wait for a new connection (and for a free one in a busy pool). */
  connectTimeoutMs: number;
  /** The database cancels any statement running longer (statement_timeout). */
  statementTimeoutMs: number;
}

/**
 * Sized for a server answering small indexed queries: a page takes a few milliseconds, so
 * ten connections serve thousands of requests a second, and a request fails with a 503
 * well inside the HTTP request timeout when the database does not answer.
 */
export const DEFAULT_CONNECTION_SETTINGS: ConnectionSettings = {
  poolSize: 10,
  connectTimeoutMs: 2_000,
  statementTimeoutMs: 5_000,
};

/** The margin past the statement timeout after which the client gives up on its own (a dead host does not answer cancels). */
const CLIENT_TIMEOUT_MARGIN_MS = 1_000;

export function createPool(databaseUrl: string, logger: Logger, settings: ConnectionSettings = DEFAULT_CONNECTION_SETTINGS): Pool {
  const config: PoolConfig = {
    connectionString: databaseUrl,
    max: settings.poolSize,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    statement_timeout: settings.statementTimeoutMs,
    query_timeout: settings.statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
    idleTimeoutMillis: 30_000,
    application_name: 'agent-server',
  };
  const pool = new Pool(config);
  // An idle connection the database drops (restart, failover) emits here; without a
  // listener the process would exit. The pool discards it; the next query connects anew.
  pool.on('error', (error) => logger.warn('database connection lost', { error: error.message }));
  return pool;
}

/**
 * Whether an error from the driver means the database is unreachable or refusing work for
 * now (SQLSTATE classes 08 connection, 53 resources, 57 operator intervention such as a
 * shutdown or a cancelled statement), as opposed to a fault in what we asked.
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseError) return /^(08|53|57)/.test(error.code ?? '');
  // Node's socket errors (ECONNREFUSED, ECONNRESET...) and the driver's own timeouts and
  // "Connection terminated" carry no SQLSTATE. Read by shape, not instanceof: a socket
  // error may come from another realm (a test runner's sandbox).
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof message !== 'string') return false;
  return (typeof code === 'string' && code.startsWith('E')) || /connection|timeout|terminat/i.test(message);
}

/** Runs a database call; an unavailable database becomes a StoreUnavailableError. */
export async function guarded<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isUnavailable(error))
      throw new StoreUnavailableError(`The event database cannot be reached (${what}: ${describeDatabaseError(error)})`, { cause: error });
    throw error;
  }
}

/** A short description of a driver error, never including the connection string. */
export function describeDatabaseError(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = (error as { message?: unknown } | undefined)?.message;
  const text = typeof message === 'string' ? message : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${code} ${text}` : text;
}

/** The URL without its password, for messages. */
export function redactedUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(a database URL that does not parse)';
  }
}
