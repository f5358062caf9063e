/**
 * Copies a conversations directory in the reference layout into the database, and with
 * `follow` keeps copying what agent servers append. Files are read and decoded with the
 * directory store's own code (event-row.ts), so both stores serve and skip the same files.
 *
 * Idempotent and resumable: a file is written once (the key is conversation and file
 * index), each batch commits with the counters it changes, and a run starts by reading
 * which files the database already holds, so a run killed at any point and started
 * again neither loses nor doubles an event.
 */
import { type FSWatcher, watch } from 'node:fs';
import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Pool, PoolClient } from 'pg';
import { LEFT_OUT_OF_CATALOG, META_FILE, STATE_FILE, entryOfFiles, parseJsonObject } from '../../catalog/catalog-entry';
import type { Logger } from '../../log';
import { locateConversation } from '../directory/open/conversation-location';
import { titleOf } from '../directory/list/conversation-summaries';
import { errorCode } from '../error-code';
import { readEventFile, readEventFileNow, SCRATCH_BYTES } from '../directory/load/event-file-reader';
import { eventFilesOf, listDirectory } from '../directory/load/event-listing';
import type { EventFileName } from '../directory/load/event-file-name';
import { TimeSlice, afterNextPoll } from '../directory/load/time-slice';
import { versionOf } from '../directory/list/file-version';
import { describeDatabaseError, isUnavailable } from './connection';
import { eventRowOf, type EventRow } from './event-row';
import { migrate } from './migrations';
import { storedSortMicros } from './sort-micros';
import { nullableTextColumn, textColumn } from './text-column';

export interface IngestOptions {
  /** The conversations directory. */
  root: string;
  pool: Pool;
  logger: Logger;
  /** Keep watching for appended events and new conversations until `signal` aborts. */
  follow?: boolean;
  signal?: AbortSignal;
  /** How often a followed directory is checked for changes. */
  pollMs?: number;
  /** Event files written per transaction. */
  batchSize?: number;
  /** Called about every `progressMs` while files are being copied, and once at the end of each pass that copied any. */
  onProgress?: (progress: IngestProgress) => void;
  progressMs?: number;
}

export interface IngestProgress {
  /** Event files read in this pass, and how many it found to read. */
  filesDone: number;
  filesTotal: number;
  eventsStored: number;
  filesSkipped: number;
  conversationsDone: number;
  conversationsTotal: number;
  elapsedMs: number;
}

export interface IngestSummary {
  conversations: number;
  eventsStored: number;
  filesSkipped: number;
  /** Skipped files by conversation and name, with the reason. */
  skipped: { conversation: string; file: string; reason: string }[];
}

const DEFAULT_POLL_MS = 250;
/** The first key of the per-conversation lock a batch is written under (the second is the conversation's row id). */
const APPEND_LOCK = 0x61707064;
const DEFAULT_BATCH_SIZE = 1000;
const DEFAULT_PROGRESS_MS = 2000;
/** How long a followed run waits before trying again after the database was unreachable. */
const RETRY_MS = 1000;
const NAMES_PER_SLICE_MS = 20;
/** How long reading and decoding run before the statements of the batch being written get a turn. */
const DECODE_SLICE_MS = 5;

/** Runs the ingest; with `follow`, resolves only once `signal` aborts. Rejects when the root cannot be read. */
export async function ingestConversations(options: IngestOptions): Promise<IngestSummary> {
  const ingester = await createIngester(options);
  try {
    return await runPasses(ingester, options);
  } finally {
    ingester.close();
  }
}

async function runPasses(ingester: DirectoryIngester, options: IngestOptions): Promise<IngestSummary> {
  await ingester.pass();
  while (options.follow && !options.signal?.aborted) {
    await sleep(options.pollMs ?? DEFAULT_POLL_MS, options.signal);
    if (options.signal?.aborted) break;
    try {
      await ingester.pass();
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      options.logger.warn('ingest: the database is unreachable; trying again', { error: describeDatabaseError(error) });
      await sleep(RETRY_MS, options.signal);
    }
  }
  return ingester.summary();
}

/** One look at the whole directory at a time, for callers that decide when to look (tests that must see a write at once). */
export interface DirectoryIngester {
  /** Copies what changed since the last pass; rejects when the directory cannot be read or the database fails. */
  pass(): Promise<void>;
  summary(): IngestSummary;
  /** Stops the watches a followed ingester keeps. */
  close(): void;
}

/** Migrates the database and returns an ingester of `options.root` that has not read anything yet. */
export async function createIngester(options: IngestOptions): Promise<DirectoryIngester> {
  await migrate(options.pool);
  return new Ingester(options);
}

interface ConversationState {
  id: number;
  hex: string;
  /** Names of the files the database holds, by position. */
  stored: Map<number, string>;
  /** Files not served, with the size and time they had when read. */
  skipped: Map<string, { reason: string; size: number; modifiedMs: number }>;
  /** The `events/` directory's change time at the last complete scan. */
  scannedStamp: string | undefined;
  /** Which directories were read: one deleted and created again under the same name is read afresh. */
  identity: string | undefined;
  /**
   * Files the watch saw written since the last scan: a file rewritten in place changes no
   * directory time, and the directory store serves its new content, so it is read again.
   */
  rewritten: Set<string>;
  watch: { directory: string; watcher: FSWatcher } | undefined;
  /** The versions of `meta.json` and `base_state.json` when they were last copied. */
  documentsStamp: string | undefined;
}

interface PendingConversation {
  state: ConversationState;
  eventsDirectory: string;
  stamp: string | undefined;
  files: EventFileName[];
  listed: Set<string>;
}

class Ingester implements DirectoryIngester {
  private readonly conversations = new Map<string, ConversationState>();
  private readonly scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  private realRoot: string | undefined;
  private eventsStored = 0;
  private progress: IngestProgress = emptyProgress();
  private passStarted = 0;
  private lastReport = 0;

  constructor(private readonly options: IngestOptions) {}

  summary(): IngestSummary {
    const skipped = [...this.conversations.values()].flatMap((state) =>
      [...state.skipped].map(([file, { reason }]) => ({ conversation: state.hex, file, reason })),
    );
    return { conversations: this.conversations.size, eventsStored: this.eventsStored, filesSkipped: skipped.length, skipped };
  }

  /** One look at the whole directory: new conversations, new, changed and deleted files. */
  async pass(): Promise<void> {
    // Lets the watches deliver what the kernel has queued, so a write made before this
    // pass began is seen by it.
    if (this.options.follow) await afterNextPoll();
    if (this.realRoot === undefined) this.realRoot = await realpath(this.options.root);
    const realRoot = this.realRoot;
    const names = await listDirectory(realRoot);
    if (names === undefined) throw new Error(`The conversations directory ${this.options.root} does not exist`);
    const present = new Set(names.filter((name) => /^[0-9a-f]{32}$/.test(name)));
    await this.forgetRemoved(realRoot, present);

    const pending: PendingConversation[] = [];
    for (const hex of [...present].sort()) {
      const found = await this.changedConversation(realRoot, hex);
      if (found) pending.push(found);
    }
    this.passStarted = performance.now();
    this.progress = {
      ...emptyProgress(),
      filesTotal: pending.reduce((sum, conversation) => sum + conversation.files.length, 0),
      conversationsTotal: pending.length,
    };
    for (const conversation of pending) {
      await this.copy(conversation, realRoot);
      this.progress.conversationsDone += 1;
    }
    if (this.progress.filesDone > 0) this.report(true);
  }

  /** A followed conversation whose directory was deleted is deleted from the database too. */
  private async forgetRemoved(realRoot: string, present: Set<string>): Promise<void> {
    for (const [hex, state] of this.conversations) {
      if (present.has(hex) || (await locateConversation(realRoot, hex)).found) continue;
      await this.options.pool.query('DELETE FROM conversations WHERE id = $1', [state.id]);
      state.watch?.watcher.close();
      this.conversations.delete(hex);
      this.options.logger.info('ingest: conversation deleted, its directory is gone', { conversation: hex });
    }
  }

  /** The conversation's files still to read, or undefined when nothing changed since the last scan. */
  private async changedConversation(realRoot: string, hex: string): Promise<PendingConversation | undefined> {
    const location = await locateConversation(realRoot, hex);
    if (!location.found) return undefined;
    const state = this.conversations.get(hex) ?? (await this.register(hex));
    await this.copyDocuments(state, location.directory);
    const eventsDirectory = path.join(location.directory, 'events');
    const stamp = await directoryStamp(eventsDirectory);
    const identity = `${location.identity}/${stamp?.identity ?? 'no events'}`;
    if (state.identity !== undefined && state.identity !== identity) await this.forgetContents(state);
    state.identity = identity;
    if (this.options.follow) this.watchWrites(state, eventsDirectory);
    const retrySkipped = await this.anySkippedChanged(state, eventsDirectory);
    const rewritten = new Set(state.rewritten);
    state.rewritten.clear();
    if (stamp !== undefined && stamp.changed === state.scannedStamp && !retrySkipped && rewritten.size === 0) return undefined;
    const listing = (await listDirectory(eventsDirectory)) ?? [];
    const files = await eventFilesOf(listing, new TimeSlice(NAMES_PER_SLICE_MS));
    const listed = new Set(files.map((file) => file.name));
    const toRead: EventFileName[] = [];
    for (const file of files) {
      if (state.stored.get(file.position) === file.name && !rewritten.has(file.name)) continue;
      const skipped = state.skipped.get(file.name);
      if (skipped && !(await changedSince(path.join(eventsDirectory, file.name), skipped))) continue;
      toRead.push(file);
    }
    return { state, eventsDirectory, stamp: stamp?.changed, files: toRead, listed };
  }

  /**
   * What the catalog and the list of conversations read of the directory: `meta.json` (and
   * its title) and `base_state.json`, copied again whenever either file changes.
   */
  private async copyDocuments(state: ConversationState, directory: string): Promise<void> {
    const metaFile = path.join(directory, META_FILE);
    const stateFile = path.join(directory, STATE_FILE);
    const [metaStats, stateStats] = await Promise.all([fileStats(metaFile), fileStats(stateFile)]);
    const stamp = `${versionOf(metaStats)}|${versionOf(stateStats)}`;
    if (stamp === state.documentsStamp) return;
    const [metaText, stateText] = await Promise.all([metaStats && readText(metaFile), stateStats && readText(stateFile)]);
    const meta = metaText === undefined ? undefined : parseJsonObject(metaText);
    const savedState = stateText === undefined ? undefined : parseJsonObject(stateText);
    const entry = entryOfFiles(state.hex, meta, savedState, stateStats !== undefined);
    if (metaText !== undefined && !entry) this.options.logger.warn(LEFT_OUT_OF_CATALOG, { conversation: state.hex });
    const title = metaStats ? await titleOf(metaFile) : null;
    await this.transaction(async (client) => {
      await client.query('UPDATE conversations SET title = $2 WHERE id = $1 AND title IS DISTINCT FROM $2', [state.id, nullableTextColumn(title)]);
      if (metaText === undefined && stateText === undefined) {
        await client.query('DELETE FROM conversation_documents WHERE conversation_id = $1', [state.id]);
        return;
      }
      await client.query(UPSERT_DOCUMENTS, [
        state.id,
        state.hex,
        meta ? JSON.stringify(meta) : null,
        savedState ? JSON.stringify(savedState) : null,
        entry !== undefined,
        entry?.status ?? 'idle',
        storedSortMicros(entry?.createdAt),
        storedSortMicros(entry?.updatedAt),
        entry?.parentHex ?? null,
      ]);
    });
    state.documentsStamp = stamp;
  }

  /** A conversation whose directory was replaced: what was stored of the old one goes, and the new one is read in full. */
  private async forgetContents(state: ConversationState): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('DELETE FROM events WHERE conversation_id = $1', [state.id]);
      await client.query('DELETE FROM skipped_files WHERE conversation_id = $1', [state.id]);
      await client.query('UPDATE conversations SET event_count = 0, skipped_count = 0 WHERE id = $1', [state.id]);
    });
    state.stored.clear();
    state.skipped.clear();
    state.scannedStamp = undefined;
    state.watch?.watcher.close();
    state.watch = undefined;
    this.options.logger.info('ingest: conversation directory replaced, reading it again', { conversation: state.hex });
  }

  /** Notes files written in place; a watch that fails leaves the directory polling alone. */
  private watchWrites(state: ConversationState, eventsDirectory: string): void {
    if (state.watch?.directory === eventsDirectory) return;
    state.watch?.watcher.close();
    state.watch = undefined;
    try {
      const watcher = watch(eventsDirectory, { persistent: false }, (eventType, name) => {
        if (eventType === 'change' && typeof name === 'string') state.rewritten.add(name);
      });
      watcher.on('error', () => watcher.close());
      state.watch = { directory: eventsDirectory, watcher };
    } catch {
      // No events/ yet: the next pass tries again.
    }
  }

  /** Stops the watches of a followed run. */
  close(): void {
    for (const state of this.conversations.values()) state.watch?.watcher.close();
  }

  private async anySkippedChanged(state: ConversationState, eventsDirectory: string): Promise<boolean> {
    for (const [name, skipped] of state.skipped) {
      if (await changedSince(path.join(eventsDirectory, name), skipped)) return true;
    }
    return false;
  }

  /** Creates the conversation's row if needed and reads what the database already holds of it. */
  private async register(hex: string): Promise<ConversationState> {
    const { pool } = this.options;
    const inserted = await pool.query<{ id: number }>('INSERT INTO conversations (hex) VALUES ($1) ON CONFLICT (hex) DO NOTHING RETURNING id', [hex]);
    const id = inserted.rows[0]?.id ?? (await pool.query<{ id: number }>('SELECT id FROM conversations WHERE hex = $1', [hex])).rows[0]!.id;
    const stored = await pool.query<{ position: string; file_name: string }>('SELECT position, file_name FROM events WHERE conversation_id = $1', [
      id,
    ]);
    const skipped = await pool.query<{ file_name: string; reason: string; size: string; modified_ms: number }>(
      'SELECT file_name, reason, size, modified_ms FROM skipped_files WHERE conversation_id = $1',
      [id],
    );
    const state: ConversationState = {
      id,
      hex,
      stored: new Map(stored.rows.map((row) => [Number(row.position), row.file_name])),
      skipped: new Map(skipped.rows.map((row) => [row.file_name, { reason: row.reason, size: Number(row.size), modifiedMs: row.modified_ms }])),
      scannedStamp: undefined,
      identity: undefined,
      rewritten: new Set(),
      watch: undefined,
      documentsStamp: undefined,
    };
    this.conversations.set(hex, state);
    return state;
  }

  /** Reads and writes the pending files in batches: one batch is decoded while the previous one is written. */
  private async copy(conversation: PendingConversation, realRoot: string): Promise<void> {
    const { state } = conversation;
    const batchSize = this.options.batchSize ?? DEFAULT_BATCH_SIZE;
    let writing: Promise<void> = Promise.resolve();
    try {
      for (let start = 0; start < conversation.files.length; start += batchSize) {
        const batch = await this.decodeBatch(conversation, conversation.files.slice(start, start + batchSize), realRoot);
        await writing;
        writing = this.write(state, batch);
        // Rejections are awaited below; this keeps one from being reported as unhandled meanwhile.
        writing.catch(() => undefined);
      }
      await writing;
      await this.removeDeleted(conversation);
    } catch (error) {
      await writing.catch(() => undefined);
      throw error;
    }
    state.scannedStamp = conversation.stamp;
  }

  /**
   * Reads and decodes a batch in slices: between them the event loop runs, so the previous
   * batch's statements go on to the database while this one is read. Read in one synchronous
   * stretch, the two took turns and the database sat idle while files were read.
   */
  private async decodeBatch(conversation: PendingConversation, files: EventFileName[], realRoot: string): Promise<Batch> {
    const batch: Batch = { rows: [], skipped: [], read: files.length };
    const claimed = new Set<number>();
    const slice = new TimeSlice(DECODE_SLICE_MS);
    for (const file of files) {
      if (slice.isOver()) await slice.yield();
      const filePath = path.join(conversation.eventsDirectory, file.name);
      const storedName = conversation.state.stored.get(file.position);
      if ((storedName !== undefined && storedName !== file.name) || claimed.has(file.position)) {
        batch.skipped.push(await skippedFile(filePath, file, `index ${file.position} is already served from another event file`));
        continue;
      }
      const read = readEventFileNow(filePath, this.scratch) ?? (await readEventFile(filePath, realRoot, this.scratch));
      if (read.kind === 'gone') continue;
      if (read.kind === 'unreadable') {
        batch.skipped.push(await skippedFile(filePath, file, read.reason));
        continue;
      }
      const decoded = eventRowOf(read.bytes, file);
      if (decoded.ok) {
        batch.rows.push(decoded.row);
        claimed.add(file.position);
      } else {
        batch.skipped.push(await skippedFile(filePath, file, decoded.reason));
      }
    }
    return batch;
  }

  private async write(state: ConversationState, batch: Batch): Promise<void> {
    const inserted = await this.transaction(async (client) => {
      let inserted = 0;
      // One writer of a conversation's events at a time, whatever the number of ingesters:
      // append numbers are then committed in order, and a socket that saw one never misses a smaller one.
      await client.query('SELECT pg_advisory_xact_lock($1, $2)', [APPEND_LOCK, state.id]);
      if (batch.rows.length > 0) {
        const result = await client.query<{ inserted: boolean }>(INSERT_EVENTS, [
          state.id,
          batch.rows.map((row) => row.position),
          batch.rows.map((row) => row.fileName),
          batch.rows.map((row) => row.eventId),
          batch.rows.map((row) => row.kind),
          batch.rows.map((row) => row.source),
          batch.rows.map((row) => row.sortMicros),
          batch.rows.map((row) => row.bodyText),
          batch.rows.map((row) => row.payload),
        ]);
        inserted = result.rows.filter((row) => row.inserted).length;
        await client.query('DELETE FROM skipped_files WHERE conversation_id = $1 AND file_name = ANY($2::text[])', [
          state.id,
          batch.rows.map((row) => row.fileName),
        ]);
      }
      // A stored file rewritten into something unservable is no longer served.
      const unserved = batch.skipped.filter((file) => state.stored.get(file.position) === file.name).map((file) => file.position);
      if (unserved.length > 0) {
        const deleted = await client.query('DELETE FROM events WHERE conversation_id = $1 AND position = ANY($2::bigint[])', [state.id, unserved]);
        inserted -= deleted.rowCount ?? 0;
      }
      if (batch.skipped.length > 0) {
        await client.query(UPSERT_SKIPPED, [
          state.id,
          batch.skipped.map((file) => textColumn(file.name)),
          batch.skipped.map((file) => file.reason),
          batch.skipped.map((file) => file.size),
          batch.skipped.map((file) => file.modifiedMs),
        ]);
      }
      await updateCounters(client, state.id, inserted);
      return inserted;
    });
    for (const row of batch.rows) {
      state.stored.set(row.position, row.fileName);
      state.skipped.delete(row.fileName);
    }
    for (const file of batch.skipped) {
      if (state.stored.get(file.position) === file.name) state.stored.delete(file.position);
      if (!state.skipped.has(file.name))
        this.options.logger.warn('event file skipped', { conversation: state.hex, file: file.name, reason: file.reason });
      state.skipped.set(file.name, file);
    }
    this.eventsStored += inserted;
    this.progress.eventsStored += inserted;
    this.progress.filesDone += batch.read;
    this.progress.filesSkipped += batch.skipped.length;
    this.report(false);
  }

  /** Files the database holds that are no longer in the directory: the directory store stops serving them too. */
  private async removeDeleted(conversation: PendingConversation): Promise<void> {
    const { state, listed } = conversation;
    const goneEvents = [...state.stored].filter(([, name]) => !listed.has(name));
    const goneSkipped = [...state.skipped.keys()].filter((name) => !listed.has(name));
    if (goneEvents.length === 0 && goneSkipped.length === 0) return;
    await this.transaction(async (client) => {
      const deleted = await client.query('DELETE FROM events WHERE conversation_id = $1 AND position = ANY($2::bigint[])', [
        state.id,
        goneEvents.map(([position]) => position),
      ]);
      await client.query('DELETE FROM skipped_files WHERE conversation_id = $1 AND file_name = ANY($2::text[])', [
        state.id,
        goneSkipped.map(textColumn),
      ]);
      await updateCounters(client, state.id, -(deleted.rowCount ?? 0));
    });
    for (const [position] of goneEvents) state.stored.delete(position);
    for (const name of goneSkipped) state.skipped.delete(name);
  }

  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.options.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private report(final: boolean): void {
    const now = performance.now();
    if (!final && now - this.lastReport < (this.options.progressMs ?? DEFAULT_PROGRESS_MS)) return;
    this.lastReport = now;
    this.options.onProgress?.({ ...this.progress, elapsedMs: now - this.passStarted });
  }
}

interface SkippedFile {
  name: string;
  position: number;
  reason: string;
  size: number;
  modifiedMs: number;
}

interface Batch {
  rows: EventRow[];
  skipped: SkippedFile[];
  read: number;
}

const INSERT_EVENTS = `
  INSERT INTO events (conversation_id, position, file_name, event_id, kind, source, sort_micros, body_text, payload)
  SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::bytea[])
  ON CONFLICT (conversation_id, position) DO UPDATE SET
    file_name = excluded.file_name, event_id = excluded.event_id, kind = excluded.kind, source = excluded.source,
    sort_micros = excluded.sort_micros, body_text = excluded.body_text, payload = excluded.payload
  RETURNING (xmax = 0) AS inserted`;

const UPSERT_SKIPPED = `
  INSERT INTO skipped_files (conversation_id, file_name, reason, size, modified_ms)
  SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::float8[])
  ON CONFLICT (conversation_id, file_name) DO UPDATE SET reason = excluded.reason, size = excluded.size, modified_ms = excluded.modified_ms`;

async function updateCounters(client: PoolClient, conversationId: number, eventsAdded: number): Promise<void> {
  await client.query(
    `UPDATE conversations SET event_count = event_count + $2,
       skipped_count = (SELECT count(*) FROM skipped_files WHERE conversation_id = $1) WHERE id = $1`,
    [conversationId, eventsAdded],
  );
}

/**
 * Parsed JSON written out again holds no U+0000 (JSON escapes it), so text columns take it;
 * the times are stored as the events' are (sort-micros.ts).
 */
const UPSERT_DOCUMENTS = `
  INSERT INTO conversation_documents (conversation_id, hex, meta, state, in_catalog, execution_status, created_micros, updated_micros, parent_hex)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
  ON CONFLICT (conversation_id) DO UPDATE SET
    meta = excluded.meta, state = excluded.state, in_catalog = excluded.in_catalog, execution_status = excluded.execution_status,
    created_micros = excluded.created_micros, updated_micros = excluded.updated_micros, parent_hex = excluded.parent_hex
  WHERE (conversation_documents.meta, conversation_documents.state, conversation_documents.in_catalog)
    IS DISTINCT FROM (excluded.meta, excluded.state, excluded.in_catalog)`;

/** A regular file's stats; undefined when it is absent or cannot be looked at (the next pass looks again). */
async function fileStats(file: string): Promise<import('node:fs').Stats | undefined> {
  const stats = await stat(file).catch(() => undefined);
  return stats?.isFile() ? stats : undefined;
}

async function readText(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch(() => undefined);
}

async function skippedFile(filePath: string, file: EventFileName, reason: string): Promise<SkippedFile> {
  const stats = await lstat(filePath).catch(() => undefined);
  return { name: file.name, position: file.position, reason, size: stats?.size ?? -1, modifiedMs: stats?.mtimeMs ?? -1 };
}

async function changedSince(filePath: string, seen: { size: number; modifiedMs: number }): Promise<boolean> {
  const stats = await lstat(filePath).catch(() => undefined);
  return stats !== undefined && (stats.size !== seen.size || stats.mtimeMs !== seen.modifiedMs);
}

/**
 * Which directory it is (device, inode, birth time: an inode number is reused at once by
 * the next directory created) and its modification and change times in nanoseconds, which
 * any entry added, removed or renamed changes.
 */
async function directoryStamp(directory: string): Promise<{ identity: string; changed: string } | undefined> {
  try {
    const stats = await stat(directory, { bigint: true });
    return { identity: `${stats.dev}:${stats.ino}:${stats.birthtimeNs}`, changed: `${stats.mtimeNs}:${stats.ctimeNs}` };
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

function emptyProgress(): IngestProgress {
  return { filesDone: 0, filesTotal: 0, eventsStored: 0, filesSkipped: 0, conversationsDone: 0, conversationsTotal: 0, elapsedMs: 0 };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
