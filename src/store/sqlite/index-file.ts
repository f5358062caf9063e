/**
 * The SQLite file that indexes a conversations directory: where it lives, how it is
 * opened, and when it is thrown away. It lives outside the directory (which may be
 * read-only, or shared with a running agent server): by default in the user's cache
 * folder, one file per directory keyed by the directory's real path; `--index-path` names
 * another. It is a cache: a file written by an older schema, or damaged, is rebuilt from
 * the directory with one log line. A file that cannot be used (held by another server,
 * unwritable, a disk full, written by a newer version) stops the start with an
 * IndexFileError naming the file and the fix.
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type BetterSqlite3 from 'better-sqlite3';
import type { Logger } from '../../log';
import { errorCode } from '../error-code';
import type { StoredEventMode } from '../stored-event/decide';
import { AFTER_FIRST_PASS_INDEXES, INDEX_SCHEMA, SCHEMA_VERSION } from './schema';

/** Why the index file cannot be used; the message names the file and what to do. */
export class IndexFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IndexFileError';
  }
}

/**
 * The default index file of a conversations directory: under `$XDG_CACHE_HOME` (or
 * `~/.cache`), named after the directory and a hash of its real path, so two directories
 * never share one and the same directory always finds its own.
 */
export function defaultIndexPath(realRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  const cache = env['XDG_CACHE_HOME'] || path.join(os.homedir(), '.cache');
  const digest = createHash('sha256').update(realRoot).digest('hex').slice(0, 16);
  const name =
    path
      .basename(realRoot)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  return path.join(cache, 'agent-server-contract', `${name}-${digest}.sqlite`);
}

export interface OpenedIndex {
  /** The connection the ingester writes on. */
  writer: BetterSqlite3.Database;
  /** The connection requests read on: in WAL mode it sees only committed transactions. */
  reader: BetterSqlite3.Database;
  /** Whether the index was complete when opened: a whole pass over the directory had been stored (completeIndex). */
  readonly completeAtOpen: boolean;
  /** How another thread opens a connection that writes the file beside the writer (connectFiller). */
  readonly filler: FillerConnection;
  close(): void;
}

/** What a thread needs to open its own connection to the index file: the file, and that connection's share of the cache. */
export interface FillerConnection {
  file: string;
  cacheKiB: number;
}

export interface IndexFileOptions {
  /** The directory the index is of (its real path). */
  realRoot: string;
  storedEvents: StoredEventMode;
  /** The page cache the index's connections share, in bytes (a share of the memory budget). */
  cacheBytes: number;
  logger: Logger;
}

/**
 * How the page cache is shared. Requests read on the reader, and a search walks the same
 * indexes' pages again and again: most of it. The writer adds a conversation's rows where
 * its own indexes end (the indexes that take rows all over are sorted in once, at the end
 * of the first pass: schema.ts), and a pass reads each conversation's stored files once, so
 * a larger share would only hold pages it does not read again; the filler reads the rows
 * it indexes once, in order.
 */
const CACHE_SHARES = { reader: 2 / 3, writer: 1 / 6, filler: 1 / 6 } as const;

/**
 * The index's page size. An event's row (its served bytes and its two search texts) is
 * larger than SQLite's default page of 4 KiB, so there every row spills into a chain of
 * overflow pages; on larger pages it fits its leaf, and a first indexing writes fewer and
 * larger pages to the write-ahead log.
 */
const PAGE_BYTES = 16 * 1024;

/**
 * A connection to an index file that `openIndexFile` opened and made current, for a thread of
 * its own that writes it beside the writer (index-thread.ts): set as the writer is.
 */
export function connectFiller({ file, cacheKiB }: FillerConnection): BetterSqlite3.Database {
  const connection = new Database(file, { fileMustExist: true });
  configure(connection, cacheKiB, 'writes');
  return connection;
}

function configure(connection: BetterSqlite3.Database, cacheKiB: number, use: 'reads' | 'writes'): void {
  connection.pragma('busy_timeout = 5000');
  // Memory-mapped reads would count the whole file against the process.
  connection.pragma('mmap_size = 0');
  connection.pragma(`cache_size = -${cacheKiB}`);
  // A writer's statements keep a statement journal (the pages a batch's INSERT changes, to
  // undo it alone), a few pages each; in a file it was a write of every such page, as many
  // bytes as the index itself. The one large sort, of the indexes sorted in when the index
  // is first complete, spills to a file (completeIndex).
  connection.pragma('temp_store = MEMORY');
  // The index is a cache of the directory: a file damaged by a power loss is rebuilt
  // (staleness), so commits need not wait for the disk; WAL keeps a crash of this process safe.
  if (use === 'writes') connection.pragma('synchronous = OFF');
}

/** The facts an index records of itself: what it is of, and whether it was ever complete. */
const ROOT_FACT = 'root';
const MODE_FACT = 'stored_events';
const COMPLETE_FACT = 'complete';

/**
 * Opens (creating, or rebuilding when it is damaged, older, or of another directory or
 * mode) the index file. Throws IndexFileError when it cannot be used.
 */
export function openIndexFile(file: string, options: IndexFileOptions): OpenedIndex {
  const fix = `Pass --index-path FILE to keep the index elsewhere.`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
  } catch (error) {
    throw new IndexFileError(`Cannot create the folder of the index file ${file} (${errorCode(error) ?? String(error)}). ${fix}`);
  }
  const releaseLock = lockIndex(file, fix);
  try {
    let writer = connect(file, fix);
    const problem = staleness(writer, options);
    if (problem) {
      writer.close();
      options.logger.info('rebuilding the conversations index', { file, because: problem });
      removeIndex(file);
      writer = connect(file, fix);
    }
    try {
      if (writer.pragma('user_version', { simple: true }) === 0) create(writer, options);
    } catch (error) {
      writer.close();
      throw new IndexFileError(`Cannot write the index file ${file} (${describe(error)}). ${fix}`);
    }
    const reader = new Database(file, { readonly: true, fileMustExist: true });
    const shareKiB = (share: number) => Math.max(1024, Math.floor((options.cacheBytes * share) / 1024));
    configure(writer, shareKiB(CACHE_SHARES.writer), 'writes');
    configure(reader, shareKiB(CACHE_SHARES.reader), 'reads');
    return {
      writer,
      reader,
      completeAtOpen: fact(writer, COMPLETE_FACT) === '1',
      filler: { file, cacheKiB: shareKiB(CACHE_SHARES.filler) },
      close() {
        reader.close();
        writer.close();
        releaseLock();
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/**
 * Sorts in the indexes a new index file is built without (schema.ts's
 * AFTER_FIRST_PASS_INDEXES) and records that a whole pass has been stored, on `connection`
 * (the writer, or a thread's beside it), unless it was done.
 */
export function completeIndex(connection: BetterSqlite3.Database): void {
  if (fact(connection, COMPLETE_FACT) === '1') return;
  // A sort holds as much as the page cache may, beside it: the cache is halved while
  // it runs, so the two together stay within the one cache's memory. Held in memory, the
  // sort would grow with the archive; spilled to a temporary file (in the system's
  // temporary folder), it holds about one cache's worth.
  const cacheSize = connection.pragma('cache_size', { simple: true }) as number;
  connection.pragma(`cache_size = ${Math.trunc(cacheSize / 2)}`);
  connection.pragma('temp_store = FILE');
  try {
    connection.transaction(() => {
      connection.exec(AFTER_FIRST_PASS_INDEXES);
      connection
        .prepare('INSERT INTO index_facts (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value')
        .run(COMPLETE_FACT, '1');
    })();
  } finally {
    connection.pragma(`cache_size = ${cacheSize}`);
    connection.pragma('temp_store = MEMORY');
  }
}

function connect(file: string, fix: string): BetterSqlite3.Database {
  let connection: BetterSqlite3.Database;
  try {
    connection = new Database(file);
  } catch (error) {
    throw new IndexFileError(`Cannot open the index file ${file} (${describe(error)}). ${fix}`);
  }
  try {
    // Takes effect only on a new file, so before WAL mode is set.
    connection.pragma(`page_size = ${PAGE_BYTES}`);
    connection.pragma('journal_mode = WAL');
    connection.pragma('foreign_keys = ON');
    return connection;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      // Damaged beyond opening: the caller's check finds it and rebuilds.
      return connection;
    }
    connection.close();
    throw new IndexFileError(`Cannot use the index file ${file} (${describe(error)}). ${fix}`);
  }
}

/** Why the file must be rebuilt (damaged, older schema, another directory or mode); undefined when it serves as it is. */
function staleness(connection: BetterSqlite3.Database, options: IndexFileOptions): string | undefined {
  let version: number;
  try {
    version = connection.pragma('user_version', { simple: true }) as number;
    if (version === 0) {
      const tables = connection.prepare("SELECT count(*) AS count FROM sqlite_schema WHERE type = 'table'").get() as { count: number };
      return tables.count === 0 ? undefined : 'it has tables but no schema version (an index of a version before versions were recorded)';
    }
    connection.prepare('SELECT count(*) FROM conversations').get();
  } catch (error) {
    return `the file is damaged (${describe(error)})`;
  }
  if (version > SCHEMA_VERSION) {
    throw new IndexFileError(
      `The index file ${connection.name} was written by a newer version of this server (schema ${version}, this one knows ${SCHEMA_VERSION}). Upgrade the server, or pass --index-path FILE to keep this version's index elsewhere.`,
    );
  }
  if (version < SCHEMA_VERSION) return `it has schema ${version}, this server writes ${SCHEMA_VERSION}`;
  if (fact(connection, ROOT_FACT) !== options.realRoot) return 'it indexes another conversations directory';
  if (fact(connection, MODE_FACT) !== options.storedEvents) return 'it was written for the other --serve-stored-events-unchanged setting';
  return undefined;
}

function create(connection: BetterSqlite3.Database, options: IndexFileOptions): void {
  connection.transaction(() => {
    connection.exec(INDEX_SCHEMA);
    const insert = connection.prepare('INSERT INTO index_facts (name, value) VALUES (?, ?)');
    insert.run(ROOT_FACT, options.realRoot);
    insert.run(MODE_FACT, options.storedEvents);
    connection.pragma(`user_version = ${SCHEMA_VERSION}`);
  })();
}

function fact(connection: BetterSqlite3.Database, name: string): string | undefined {
  const row = connection.prepare('SELECT value FROM index_facts WHERE name = ?').get(name) as { value: string } | undefined;
  return row?.value;
}

/**
 * Removes the index files in `folder` (the cache folder of defaultIndexPath) whose
 * conversations directory is gone, so the folder does not fill with indexes no server
 * will open again. Each is checked and removed under its lock, so an index a running
 * server holds is left alone, and so is one whose directory cannot be told gone (its
 * facts unreadable, its directory there but unreadable). `kept` is this server's own.
 */
export function pruneIndexesOfGoneDirectories(folder: string, kept: string, logger: Logger): void {
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.sqlite'));
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(folder, name);
    // lockIndex takes over a lock naming this process, as left by an earlier process of the same id; here it is another index this process serves.
    if (file === kept || lockOwner(file) === process.pid) continue;
    let release: () => void;
    try {
      release = lockIndex(file, '');
    } catch {
      continue;
    }
    try {
      const directory = indexedDirectory(file);
      if (directory !== undefined && isGone(directory)) {
        removeIndex(file);
        logger.info('removed the index of a conversations directory that is gone', { file, directory });
      }
    } finally {
      release();
    }
  }
}

/** The directory an index file records, or undefined when the file cannot tell. */
function indexedDirectory(file: string): string | undefined {
  try {
    const connection = new Database(file, { fileMustExist: true });
    try {
      return fact(connection, ROOT_FACT);
    } finally {
      connection.close();
    }
  } catch {
    return undefined;
  }
}

function isGone(directory: string): boolean {
  try {
    statSync(directory);
    return false;
  } catch (error) {
    return errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR';
  }
}

function removeIndex(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

/**
 * One server per index file: a lock file beside it holds the owner's process id. A lock
 * whose process is gone (a crash, a kill) is taken over.
 */
function lockIndex(file: string, fix: string): () => void {
  const lockFile = `${file}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'EEXIST') throw new IndexFileError(`Cannot write beside the index file ${file} (${code ?? String(error)}). ${fix}`);
      const owner = lockOwner(file);
      if (owner !== undefined && owner !== process.pid && isRunning(owner)) {
        throw new IndexFileError(
          `The index file ${file} is in use by another server (process ${owner}). Stop that server, or pass --index-path FILE to give this one its own index.`,
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new IndexFileError(`Cannot lock the index file ${file}. ${fix}`);
}

/** The process id the index's lock file names; undefined when there is none. */
function lockOwner(file: string): number | undefined {
  try {
    const owner = Number(readFileSync(`${file}.lock`, 'utf8').trim());
    return Number.isInteger(owner) && owner > 0 ? owner : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = (error as { message?: unknown } | undefined)?.message;
  const text = typeof message === 'string' ? message : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}
