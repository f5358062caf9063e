/**
 * The one ingester: it follows a conversations directory in the agent server's layout and
 * keeps an SQL database (the SQLite index or PostgreSQL) equal to it. The server runs it
 * over its SQLite index (sqlite/indexed-directory.ts); `npm run ingest [--follow]` runs it
 * over PostgreSQL. It reads new, grown, replaced and removed files, conversations added and
 * deleted, `meta.json` and `base_state.json`.
 *
 * What it knows of the directory is in the database (each conversation's directory
 * identity and times, each file's size and time), so a run killed at any point and started
 * again reads only what changed, and neither loses nor doubles an event: a file is written
 * once (the key is conversation and file index), and each batch commits with the counters
 * it changes.
 *
 * Hostile files: only regular files are read, opened without blocking and without
 * following links; a link is followed only to a target inside the root
 * (files/contained-path.ts); a file that cannot be decoded, whatever the reason, is skipped
 * with that reason and named in the log, and the ingester goes on. Of two files holding one
 * index or one event id, one is served and the other skipped (served-files.ts).
 *
 * Beside it: directory-watch.ts (what the kernel's watches tell it), conversation-documents.ts
 * (meta.json and base_state.json), event-file-decoder.ts (files read and decoded into rows).
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../log';
import { errorCode } from '../error-code';
import { resolveLinkInsideRoot } from '../files/contained-path';
import { conversationNames, locateConversation } from '../files/conversation-location';
import type { EventFileName } from '../files/event-file-name';
import { type ReadVersion, versionOfPath } from '../files/event-file-reader';
import { eventFilesOf, listDirectory } from '../files/event-listing';
import { TimeSlice, afterNextPoll } from '../files/time-slice';
import type { SqlDatabase, SqlWriter } from '../sql/database';
import type { SqlDialect } from '../sql/dialect';
import { eventPieceInserts, eventPiecesRemoval } from '../sql/event-pieces';
import { Parameters } from '../sql/statement';
import { textColumn } from '../sql/text-column';
import type { StoredEventMode } from '../stored-event/decide';
import { type DocumentsRead, readConversationDocuments, writeConversationDocuments } from './conversation-documents';
import { DirectoryWatch } from './directory-watch';
import { type Batch, type SkippedFile, StoredFiles, batchOf } from './served-files';
import { EventFileDecoder } from './event-file-decoder';
import type { EventRow } from './event-row';
import { StoredEventReport } from '../stored-event/report';

export interface IngestOptions {
  /** The conversations directory. */
  root: string;
  database: SqlDatabase;
  logger: Logger;
  /** What is served of stored events (the server's `--serve-stored-events-unchanged`); `contract` by default. */
  storedEvents?: StoredEventMode;
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
/** The first key of the per-conversation lock a PostgreSQL batch is written under (the second is the conversation's row id). */
const APPEND_LOCK = 0x61707064;
const DEFAULT_BATCH_SIZE = 500;
/**
 * Batches of a long conversation written per transaction. A commit writes whole pages of
 * every index its rows touched, and the events' index by id takes a conversation's rows at
 * random places, so every commit rewrote most of that conversation's part of it; a few
 * batches per commit write it a few times less. The writer is held meanwhile, also while
 * the next batch is decoded: another conversation's first read waits that long.
 */
const BATCHES_PER_TRANSACTION = 4;
/** How long the comparison of files' sizes and times with the database runs before requests get a turn. */
const COMPARE_SLICE_MS = 5;
/** Conversations whose stored-file lists are kept between looks: the few being appended to at once. */
const STORED_LISTS_KEPT = 8;
const DEFAULT_PROGRESS_MS = 2000;
/** How long a followed run waits before trying again after the database failed. */
const RETRY_MS = 1000;
const NAMES_PER_SLICE_MS = 20;

/** Runs the ingest; with `follow`, resolves only once `signal` aborts. Rejects when the root cannot be read. */
export async function ingestConversations(options: IngestOptions, isUnavailable: (error: unknown) => boolean = () => false): Promise<IngestSummary> {
  const ingester = createIngester(options);
  try {
    await ingester.pass();
    while (options.follow && !options.signal?.aborted) {
      await sleep(options.pollMs ?? DEFAULT_POLL_MS, options.signal);
      if (options.signal?.aborted) break;
      try {
        await ingester.pass();
      } catch (error) {
        if (!isUnavailable(error)) throw error;
        options.logger.warn('ingest: the database is unreachable; trying again', { error: (error as Error).message });
        await sleep(RETRY_MS, options.signal);
      }
    }
    return await ingester.summary();
  } finally {
    ingester.close();
  }
}

/** The ingester of one directory; its callers decide when it looks. */
export interface DirectoryIngester {
  /** One look at the whole directory: copies what changed since the last; rejects when the directory cannot be read or the database fails. */
  pass(): Promise<void>;
  /**
   * One look at one conversation, now: the server asks before answering for it, so a
   * request sees what is on disk, and a conversation is answered as soon as it is read,
   * not after the whole directory.
   */
  refresh(hex: string): Promise<void>;
  /** Whether something may have changed since the last pass ended (always, where no watch can tell). */
  mayHaveChanged(): boolean;
  /** Grows with every transaction written: a reader of counters reads them again when it changed. */
  writes(): number;
  /** The number (of writes()) of the last transaction that wrote the conversation's events; 0 when none has since the ingester started. */
  writesTo(hex: string): number;
  /** What the database holds of the directory: its conversations, the events this ingester stored, every file not served and why. */
  summary(): Promise<IngestSummary>;
  /** Stops the watches. */
  close(): void;
}

/** An ingester of `options.root` that has not read anything yet (the database's schema must be in place). */
export function createIngester(options: IngestOptions): DirectoryIngester {
  return new Ingester(options);
}

const CONVERSATION_COLUMNS = 'id, hex, skipped_count, directory_identity, events_stamp, documents_stamp, unreadable';

/** What the database holds of a conversation's directory. */
interface ConversationRow {
  id: number;
  hex: string;
  skipped_count: number;
  directory_identity: string | null;
  events_stamp: string | null;
  documents_stamp: string | null;
  /** Why the last look could not read the directory; null once a look reads it. */
  unreadable: string | null;
}

/** What a conversation's look found to do. */
interface PendingConversation {
  row: ConversationRow;
  eventsDirectory: string;
  identity: string;
  stamp: string | undefined;
  files: EventFileName[];
  /**
   * The names the look listed; undefined when the database held no file of the conversation
   * before it, stored or skipped: every file it holds after is then one the look listed.
   */
  listed: Set<string> | undefined;
  stored: StoredFiles;
  /** The files the database holds as skipped, by name, kept as batches are written. */
  skipped: Map<string, SkippedFile>;
}

/** What a look found gone from the directory: positions of stored events, names of skipped files. */
interface GoneFiles {
  events: number[];
  skipped: string[];
}

class Ingester implements DirectoryIngester {
  private readonly mode: StoredEventMode;
  private readonly decoder: EventFileDecoder;
  private realRoot: string | undefined;
  private eventsStored = 0;
  private progress: IngestProgress = emptyProgress();
  private passStarted = 0;
  private lastReport = 0;
  /** One look at a conversation at a time: a pass and a request's refresh take turns. */
  private readonly turns = new Map<string, Promise<void>>();
  /** Conversations whose files have been compared one by one with the database since this process started. */
  private readonly verified = new Set<string>();
  /** What the kernel's watches tell of the directory when following it: until one speaks, a request's refresh needs no look of its own. */
  private readonly watch = new DirectoryWatch();
  private nextAppendNumber: number | undefined;
  /** Counted by wrote() only, which also keeps the conversation's number: kept first pages follow it (writesTo). */
  private transactionsWritten = 0;
  /** Per conversation, `transactionsWritten` as its last write left it (writesTo). */
  private readonly lastWriteTo = new Map<string, number>();
  /** The stored-file lists of the conversations looked at last, least recent first (storedFiles). */
  private readonly storedLists = new Map<number, StoredFiles>();
  /** Links out of the root already warned of, so each is named once. */
  private readonly warned = new Set<string>();
  /** Conversations this ingester marked unreadable: a pass's row, read before, may not say so yet. */
  private readonly unreadable = new Set<string>();
  /** The INSERT statements of batches, by dialect and number of rows (eventInsert). */
  private readonly insertTexts = new Map<string, string>();
  /** The log lines about each conversation's files not served as stored: one per reason per conversation. */
  private readonly reports = new Map<string, StoredEventReport>();
  /**
   * Whether this ingester is the only writer of the database (the SQLite index: one server
   * per file, index-file.ts's lock), so what it read at a look stays what the database
   * holds. Several may fill one PostgreSQL database, and another may have stored a row or
   * skipped a file since.
   */
  private readonly soleWriter: boolean;

  constructor(private readonly options: IngestOptions) {
    this.mode = options.storedEvents ?? 'contract';
    this.soleWriter = options.database.dialect.name === 'sqlite';
    this.decoder = new EventFileDecoder(this.mode);
  }

  async summary(): Promise<IngestSummary> {
    const { database } = this.options;
    const conversations = await database.rows<{ count: number | string }>({ text: 'SELECT count(*) AS count FROM conversations', values: [] });
    const skipped = await database.rows<{ hex: string; file_name: string; reason: string }>({
      text: 'SELECT c.hex, s.file_name, s.reason FROM skipped_files s JOIN conversations c ON c.id = s.conversation_id ORDER BY c.hex, s.file_name',
      values: [],
    });
    return {
      conversations: Number(conversations[0]?.count ?? 0),
      eventsStored: this.eventsStored,
      filesSkipped: skipped.length,
      skipped: skipped.map((row) => ({ conversation: row.hex, file: row.file_name, reason: row.reason })),
    };
  }

  mayHaveChanged(): boolean {
    return this.watch.mayHaveChanged();
  }

  writes(): number {
    return this.transactionsWritten;
  }

  writesTo(hex: string): number {
    return this.lastWriteTo.get(hex) ?? 0;
  }

  /** Counts a transaction written, which wrote that conversation's events; called once it has committed. */
  private wrote(hex: string): void {
    this.transactionsWritten += 1;
    this.lastWriteTo.set(hex, this.transactionsWritten);
  }

  private async root(): Promise<string> {
    if (this.realRoot === undefined) {
      this.realRoot = await realpath(this.options.root);
      if (this.options.follow) this.watch.watchRoot(this.realRoot);
    }
    return this.realRoot;
  }

  async pass(): Promise<void> {
    // Lets the watches deliver what the kernel has queued, so a write made before this pass began is seen by it.
    if (this.options.follow) await afterNextPoll();
    this.watch.passBegins();
    const realRoot = await this.root();
    const present = new Set(await conversationNames(realRoot));
    const known = await this.options.database.rows<ConversationRow>({
      text: `SELECT ${CONVERSATION_COLUMNS} FROM conversations`,
      values: [],
    });
    const rows = new Map(known.map((row) => [row.hex, { ...row, id: Number(row.id), skipped_count: Number(row.skipped_count) }]));
    for (const row of known) if (!present.has(row.hex)) await this.inTurn(row.hex, () => this.forgetIfGone(realRoot, row.hex));

    this.passStarted = performance.now();
    this.progress = { ...emptyProgress(), conversationsTotal: present.size };
    for (const hex of [...present].sort()) {
      // A conversation that cannot be read (an `events` that is a pipe or a file, a directory
      // it may not list) stops neither the pass nor the others: its own requests meet the error.
      await this.inTurn(hex, () => this.look(realRoot, hex, rows.get(hex))).catch((error: unknown) => {
        if (!isFileSystemError(error)) throw error;
        const reason = (error as Error).message;
        const key = `not read|${hex}|${reason}`;
        if (this.warned.has(key)) return;
        this.warned.add(key);
        this.options.logger.warn('conversation not read, the others are', { conversation: hex, reason });
      });
      this.progress.conversationsDone += 1;
    }
    if (this.progress.filesDone > 0) this.report(true);
  }

  async refresh(hex: string): Promise<void> {
    const realRoot = await this.root();
    if (await this.lookedRecentlyWhenPolled(hex)) return;
    // Requests that came while one looked waited for its look: the first looks, the others need none once it saw the conversation quiet.
    await this.inTurn(hex, async () => {
      if (!(await this.lookedRecentlyWhenPolled(hex))) await this.look(realRoot, hex);
    });
  }

  /** DirectoryWatch.lookedRecently, once the watches have delivered what the kernel had queued, so a change made before the call is seen. */
  private async lookedRecentlyWhenPolled(hex: string): Promise<boolean> {
    if (!this.watch.lookedRecently(hex)) return false;
    await afterNextPoll();
    return this.watch.lookedRecently(hex);
  }

  private inTurn(hex: string, work: () => Promise<void>): Promise<void> {
    const turn = (this.turns.get(hex) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.turns.set(hex, turn);
    return turn;
  }

  /** A conversation whose directory is gone is deleted from the database. */
  private async forgetIfGone(realRoot: string, hex: string): Promise<void> {
    if ((await locateConversation(realRoot, hex)).found) return;
    await this.options.database.run({ text: `DELETE FROM conversations WHERE hex = ${this.options.database.dialect.placeholder(1)}`, values: [hex] });
    this.wrote(hex);
    // A row id may be handed to the next conversation created: no kept list may outlive its conversation.
    this.storedLists.clear();
    this.watch.unwatch(hex);
    this.turns.delete(hex);
    this.verified.delete(hex);
    this.options.logger.info('ingest: conversation deleted, its directory is gone', { conversation: hex });
  }

  /** One look at a conversation (lookAt), remembered when its watches ran and stayed silent throughout (DirectoryWatch.lookEnded). */
  private async look(realRoot: string, hex: string, known?: ConversationRow): Promise<void> {
    const start = this.watch.lookBegins(hex);
    try {
      await this.lookAt(realRoot, hex, known);
    } catch (error) {
      if (isFileSystemError(error)) await this.markUnreadable(hex, (error as Error).message);
      throw error;
    }
    this.watch.lookEnded(start);
  }

  /**
   * Records that the conversation's directory cannot be read, and why: what the database holds
   * of it is then no answer (a server over PostgreSQL answers its requests with that error, as
   * the SQLite server's own look does), until a look reads it again.
   */
  private async markUnreadable(hex: string, reason: string): Promise<void> {
    const p = new Parameters(this.options.database.dialect);
    await this.options.database.run({
      text: `INSERT INTO conversations (hex, unreadable) VALUES (${p.add(hex)}, ${p.add(reason)}) ON CONFLICT (hex) DO UPDATE SET unreadable = excluded.unreadable`,
      values: p.values,
    });
    this.unreadable.add(hex);
    this.wrote(hex);
  }

  private async markReadable(row: ConversationRow): Promise<void> {
    if (row.unreadable === null && !this.unreadable.has(row.hex)) return;
    const p = new Parameters(this.options.database.dialect);
    await this.options.database.run({ text: `UPDATE conversations SET unreadable = NULL WHERE id = ${p.add(row.id)}`, values: p.values });
    row.unreadable = null;
    this.unreadable.delete(row.hex);
    this.wrote(row.hex);
  }

  /** One look at a conversation: its documents, then its event files; `known` is its row as a pass read it. */
  private async lookAt(realRoot: string, hex: string, known?: ConversationRow): Promise<void> {
    const location = await locateConversation(realRoot, hex);
    if (!location.found) {
      if (location.linkOutsideRoot)
        this.warnOnce('conversation directory links outside the conversations directory, not followed', location.linkOutsideRoot);
      await this.forgetIfGone(realRoot, hex);
      return;
    }
    const row = known ?? (await this.conversationRow(hex));
    const documents = await readConversationDocuments(realRoot, row, location.directory, this.options.logger);
    const eventsDirectory = await this.eventsDirectoryOf(realRoot, location.directory);
    const stamp = eventsDirectory === undefined ? undefined : await directoryStamp(eventsDirectory);
    const identity = `${location.identity}/${stamp?.identity ?? 'no events'}`;
    if (row.directory_identity !== null && row.directory_identity !== identity) await this.forgetContents(row);
    if (this.options.follow) this.watch.watchConversation(hex, location.directory, eventsDirectory ?? path.join(location.directory, 'events'));
    const rewritten = this.watch.takeRewritten(hex);
    const verify = !this.verified.has(hex);
    let skipped = row.skipped_count > 0 ? await this.skippedFiles(row.id) : new Map<string, SkippedFile>();
    const retrySkipped = eventsDirectory !== undefined && this.anyChanged(eventsDirectory, skipped);
    if (!verify && stamp !== undefined && stamp.changed === row.events_stamp && !retrySkipped && rewritten.size === 0) {
      await this.copyDocuments(row, documents);
      await this.markReadable(row);
      return;
    }

    // A pass's row may predate a request's look that skipped files since: read them afresh before reading files.
    if (known && row.skipped_count === 0) skipped = await this.skippedFiles(row.id);
    const pending = await this.pendingFiles(row, eventsDirectory, identity, stamp?.changed, skipped, rewritten, verify);
    await this.copy(pending, realRoot, documents);
    await this.markReadable(row);
    this.verified.add(hex);
  }

  /**
   * The conversation's `events/`, followed through a link only to a directory inside the
   * root; undefined (no events to read) for a link that leads outside, with one warning.
   */
  private async eventsDirectoryOf(realRoot: string, directory: string): Promise<string | undefined> {
    const eventsPath = path.join(directory, 'events');
    const entry = await lstat(eventsPath).catch(() => undefined);
    if (!entry?.isSymbolicLink()) return eventsPath;
    const link = await resolveLinkInsideRoot(realRoot, eventsPath).catch(() => ({ ok: false as const, reason: 'missing' as const }));
    if (link.ok) return link.target;
    if (link.reason === 'outside') this.warnOnce('events directory links outside the conversations directory, not followed', eventsPath);
    return undefined;
  }

  private warnOnce(message: string, linkPath: string): void {
    const key = `${message}|${linkPath}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.options.logger.warn(message, { path: linkPath });
  }

  private async conversationRow(hex: string): Promise<ConversationRow> {
    const { database } = this.options;
    const p = database.dialect.placeholder(1);
    const select = { text: `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE hex = ${p}`, values: [hex] };
    let row = (await database.rows<ConversationRow>(select))[0];
    if (!row) {
      await database.run({ text: `INSERT INTO conversations (hex) VALUES (${p}) ON CONFLICT (hex) DO NOTHING`, values: [hex] });
      row = (await database.rows<ConversationRow>(select))[0]!;
    }
    return { ...row, id: Number(row.id), skipped_count: Number(row.skipped_count) };
  }

  private async skippedFiles(conversationId: number): Promise<Map<string, SkippedFile>> {
    const rows = await this.options.database.rows<{ file_name: string; reason: string; size: number | string; modified_ms: number }>({
      text: `SELECT file_name, reason, size, modified_ms FROM skipped_files WHERE conversation_id = ${this.options.database.dialect.placeholder(1)}`,
      values: [conversationId],
    });
    return new Map(
      rows.map((row) => [
        row.file_name,
        { name: row.file_name, position: -1, because: 'broken', reason: row.reason, size: Number(row.size), modifiedMs: Number(row.modified_ms) },
      ]),
    );
  }

  /** The files to read: new ones, changed ones (by size and time when verifying, or named by the watch), and skipped ones that changed. */
  private async pendingFiles(
    row: ConversationRow,
    eventsDirectory: string | undefined,
    identity: string,
    stamp: string | undefined,
    skipped: Map<string, SkippedFile>,
    rewritten: Set<string>,
    verify: boolean,
  ): Promise<PendingConversation> {
    const stored = await this.storedFiles(row.id);
    const directory = eventsDirectory ?? '';
    const listing = eventsDirectory === undefined ? [] : ((await listDirectory(eventsDirectory)) ?? []);
    const files = await eventFilesOf(listing, new TimeSlice(NAMES_PER_SLICE_MS));
    // A conversation read for the first time, longer than a batch, is decoded on the decoding thread.
    if (stored.size === 0 && files.length > (this.options.batchSize ?? DEFAULT_BATCH_SIZE)) this.decoder.startThread();
    // Nothing stored and nothing skipped: every file is read, and there is nothing to compare.
    if (stored.size === 0 && skipped.size === 0)
      return { row, eventsDirectory: directory, identity, stamp, files, listed: undefined, stored, skipped };
    const listed = new Set(files.map((file) => file.name));
    // Which files to read. The size-and-time comparisons are system calls on this thread, in
    // slices between which requests are answered: through the thread pool each cost about
    // three times the CPU, which a restart's first look at every stored file pays in full.
    const toRead: EventFileName[] = [];
    const slice = new TimeSlice(COMPARE_SLICE_MS);
    for (const file of files) {
      const storedFile = stored.get(file.position);
      const skippedFile = skipped.get(file.name);
      // The path is made only for a file to compare, and without path.join, which would
      // normalize the whole of a path that is already normal: a file's name has no separator.
      const filePath = () => `${directory}${path.sep}${file.name}`;
      const storedAsIs = storedFile?.name === file.name && !rewritten.has(file.name) && (!verify || !changedSince(filePath(), storedFile));
      const skippedAsIs = !storedAsIs && skippedFile !== undefined && !rewritten.has(file.name) && !changedSince(filePath(), skippedFile);
      if (!storedAsIs && !skippedAsIs) toRead.push(file);
      if (slice.isOver()) await slice.yield();
    }
    return { row, eventsDirectory: directory, identity, stamp, files: toRead, listed, stored, skipped };
  }

  /**
   * The files the database holds of a conversation. The lists of the conversations looked
   * at last are kept (a followed conversation changes on every append, and reading its
   * whole list again each time would cost as much as the conversation is long); this
   * ingester is their only writer, and it updates them as it writes.
   */
  private async storedFiles(conversationId: number): Promise<StoredFiles> {
    const kept = this.storedLists.get(conversationId);
    if (kept) {
      this.storedLists.delete(conversationId);
      this.storedLists.set(conversationId, kept);
      return kept;
    }
    const stored = await this.readStoredFiles(conversationId);
    this.storedLists.set(conversationId, stored);
    while (this.storedLists.size > STORED_LISTS_KEPT) this.storedLists.delete(this.storedLists.keys().next().value!);
    return stored;
  }

  private async readStoredFiles(conversationId: number): Promise<StoredFiles> {
    const { dialect } = this.options.database;
    const rows = await this.options.database.rows<{
      position: number | string;
      file_name: string;
      event_id: string;
      file_size: number | string;
      file_modified_ms: number;
      searched: number | boolean;
    }>({
      text: `SELECT position, file_name, event_id, file_size, file_modified_ms, ${dialect.hasSearchText} AS searched
        FROM events WHERE conversation_id = ${dialect.placeholder(1)}`,
      values: [conversationId],
    });
    const stored = new StoredFiles();
    for (const row of rows) {
      // A row stored before the search text existed is read again (PostgreSQL's migration 0005).
      const size = row.searched ? Number(row.file_size) : -2;
      stored.set(Number(row.position), { name: row.file_name, eventId: row.event_id, size, modifiedMs: Number(row.file_modified_ms) });
    }
    return stored;
  }

  /** Writes documents read apart from any events: a conversation whose events did not change, or that has several batches. */
  private async copyDocuments(row: ConversationRow, read: DocumentsRead | undefined): Promise<void> {
    if (!read) return;
    await this.options.database.transaction((writer) => writeConversationDocuments(writer, row, read));
    row.documents_stamp = read.stamp;
  }

  /** A conversation whose directory was replaced: what was stored of the old one goes, and the new one is read in full. */
  private async forgetContents(row: ConversationRow): Promise<void> {
    await this.options.database.transaction(async (writer) => {
      const p = new Parameters(writer.dialect);
      const id = p.add(row.id);
      await writer.run({ text: `DELETE FROM events WHERE conversation_id = ${id}`, values: p.values });
      await writer.run({ text: `DELETE FROM skipped_files WHERE conversation_id = ${id}`, values: p.values });
      await writer.run({
        text: `UPDATE conversations SET event_count = 0, skipped_count = 0, events_stamp = NULL WHERE id = ${id}`,
        values: p.values,
      });
    });
    this.wrote(row.hex);
    this.storedLists.delete(row.id);
    row.events_stamp = null;
    this.watch.unwatch(row.hex);
    this.options.logger.info('ingest: conversation directory replaced, reading it again', { conversation: row.hex });
  }

  private anyChanged(eventsDirectory: string, skipped: Map<string, SkippedFile>): boolean {
    for (const file of skipped.values()) if (changedSince(path.join(eventsDirectory, file.name), file)) return true;
    return false;
  }

  /**
   * Reads and writes the pending files, forgets files no longer listed, and records what it
   * saw. A conversation whose files fit one batch (most of an archive, and every append
   * being followed) is written in one transaction with its documents and what it saw: each
   * commit writes whole pages of every index the rows touch, so one commit per conversation
   * rather than one per step is what a first start of many small conversations costs least.
   * A longer one is decoded a few batches ahead (BatchesAhead) and written a few batches per transaction
   * (BATCHES_PER_TRANSACTION), and records what it saw only once every batch is in, so an
   * interrupted read is read again.
   */
  private async copy(pending: PendingConversation, realRoot: string, documents: DocumentsRead | undefined): Promise<void> {
    const batchSize = this.options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.progress.filesTotal += pending.files.length;
    if (pending.files.length <= batchSize) {
      const decoded = pending.files.length === 0 ? [] : await this.decoder.decode(pending.eventsDirectory, pending.files, realRoot, 'caller');
      const batch = batchOf(pending, pending.files, decoded);
      const gone = this.goneFiles(pending);
      const added = await this.options.database.transaction(async (writer) => {
        if (documents) await writeConversationDocuments(writer, pending.row, documents);
        const added = await this.writeBatch(writer, pending, batch);
        await this.writeRemoved(writer, pending, gone);
        await this.writeSeen(writer, pending);
        return added;
      });
      this.wrote(pending.row.hex);
      if (documents) pending.row.documents_stamp = documents.stamp;
      this.afterBatch(pending, batch, added);
      this.afterRemoved(pending, gone);
      this.afterSeen(pending);
      return;
    }
    await this.copyDocuments(pending.row, documents);
    const batches: EventFileName[][] = [];
    for (let start = 0; start < pending.files.length; start += batchSize) batches.push(pending.files.slice(start, start + batchSize));
    // Batches are decoded ahead on the decoding thread (the first half by this one) while this thread writes the ones before.
    const ahead = this.decoder.ahead(pending.eventsDirectory, realRoot, batches);
    for (let first = 0; first < batches.length; first += BATCHES_PER_TRANSACTION) {
      await this.options.database
        .transaction(async (writer) => {
          for (let at = first; at < Math.min(first + BATCHES_PER_TRANSACTION, batches.length); at++) {
            const decoded = await ahead.take();
            const batch = batchOf(pending, batches[at]!, decoded);
            const added = await this.writeBatch(writer, pending, batch);
            // Before the commit: the next batch's duplicates and claimed positions are found against this one.
            this.afterBatch(pending, batch, added);
          }
        })
        .catch((error: unknown) => {
          // What was kept of batches that were not committed: the next look reads the stored files again.
          this.storedLists.delete(pending.row.id);
          ahead.discard();
          throw error;
        });
      this.wrote(pending.row.hex);
    }
    const gone = this.goneFiles(pending);
    await this.options.database.transaction(async (writer) => {
      await this.writeRemoved(writer, pending, gone);
      await this.writeSeen(writer, pending);
    });
    this.wrote(pending.row.hex);
    this.afterRemoved(pending, gone);
    this.afterSeen(pending);
  }

  /** Records the directory's identity and times the look saw, so the next look of an unchanged `events/` lists nothing. */
  private async writeSeen(writer: SqlWriter, pending: PendingConversation): Promise<void> {
    const p = new Parameters(writer.dialect);
    await writer.run({
      text: `UPDATE conversations SET events_stamp = ${p.add(pending.stamp ?? null)}, directory_identity = ${p.add(pending.identity)} WHERE id = ${p.add(pending.row.id)}`,
      values: p.values,
    });
  }

  private afterSeen(pending: PendingConversation): void {
    pending.row.events_stamp = pending.stamp ?? null;
    pending.row.directory_identity = pending.identity;
  }

  /** Writes a batch's rows and files not served, with the counters they change; the events it added. */
  private async writeBatch(writer: SqlWriter, pending: PendingConversation, batch: Batch): Promise<number> {
    const { row: conversation, stored } = pending;
    if (batch.rows.length === 0 && batch.skipped.length === 0 && (batch.displaced ?? []).length === 0) return 0;
    if (writer.dialect.name === 'postgres') {
      // One writer of a conversation's events at a time, whatever the number of ingesters:
      // append numbers are then committed in order, and a socket that saw one never misses a smaller one.
      await writer.rows({ text: 'SELECT pg_advisory_xact_lock($1, $2)', values: [APPEND_LOCK, conversation.id] });
    }
    let added = 0;
    const unserved = batch.skipped.filter((file) => stored.get(file.position)?.name === file.name).map((file) => file.position);
    const gone = [...unserved, ...(batch.displaced ?? [])];
    if (gone.length > 0) added -= await deleteEvents(writer, conversation.id, gone);
    if (batch.rows.length > 0) {
      // A row at a position stored before replaces it; the rows of a new conversation are only added.
      const replacing = !this.soleWriter || batch.rows.some((row) => stored.has(row.position) && !gone.includes(row.position));
      await this.insertEvents(writer, conversation, batch.rows, replacing);
      added += batch.rows.filter((row) => !stored.has(row.position) || gone.includes(row.position)).length;
      const wereSkipped = this.soleWriter ? batch.rows.filter((row) => pending.skipped.has(row.fileName)) : batch.rows;
      if (wereSkipped.length > 0) {
        const p = new Parameters(writer.dialect);
        await writer.run({
          text: `DELETE FROM skipped_files WHERE conversation_id = ${p.add(conversation.id)} AND ${p.textList(
            'file_name',
            wereSkipped.map((row) => row.fileName),
          )}`,
          values: p.values,
        });
      }
    }
    for (const file of batch.skipped) {
      const p = new Parameters(writer.dialect);
      await writer.run({
        text: `INSERT INTO skipped_files (conversation_id, file_name, because, reason, size, modified_ms)
          VALUES (${p.add(conversation.id)}, ${p.add(textColumn(file.name))}, ${p.add(file.because)}, ${p.add(file.reason)}, ${p.add(file.size)}, ${p.add(file.modifiedMs)})
          ON CONFLICT (conversation_id, file_name) DO UPDATE SET because = excluded.because, reason = excluded.reason, size = excluded.size, modified_ms = excluded.modified_ms`,
        values: p.values,
      });
    }
    const p = new Parameters(writer.dialect);
    const id = p.add(conversation.id);
    await writer.run({
      text: `UPDATE conversations SET event_count = event_count + ${p.add(added)},
        skipped_count = (SELECT count(*) FROM skipped_files WHERE conversation_id = ${id}) WHERE id = ${id}`,
      values: p.values,
    });
    return added;
  }

  /** What the ingester keeps of a conversation once a batch is committed: its stored files, the log lines, the progress. */
  private afterBatch(pending: PendingConversation, batch: Batch, added: number): void {
    const { row: conversation, stored } = pending;
    for (const position of batch.displaced ?? []) stored.delete(position);
    for (const row of batch.rows) {
      stored.set(row.position, { name: row.fileName, eventId: row.eventId, size: row.size, modifiedMs: row.modifiedMs });
    }
    const report = this.reportOf(conversation.hex);
    for (const row of batch.rows) {
      if (row.unlisted !== null) report.unlisted(row.unlisted);
      if (pending.skipped.has(row.fileName))
        this.options.logger.info('event file served after being skipped', {
          conversation: conversation.hex,
          file: path.join(pending.eventsDirectory, row.fileName),
        });
      pending.skipped.delete(row.fileName);
    }
    for (const file of batch.skipped) {
      if (stored.get(file.position)?.name === file.name) stored.delete(file.position);
      pending.skipped.set(file.name, file);
      report.unserved(file, path.join(pending.eventsDirectory, file.name));
    }
    report.flush();
    this.eventsStored += added;
    this.progress.eventsStored += added;
    this.progress.filesDone += batch.read;
    this.progress.filesSkipped += batch.skipped.length;
    this.report(false);
  }

  /** `replacing`: some row may take the position of a stored one, which it then replaces. */
  private async insertEvents(writer: SqlWriter, conversation: ConversationRow, rows: Batch['rows'], replacing: boolean): Promise<void> {
    if (this.nextAppendNumber === undefined && writer.dialect.name === 'sqlite') {
      const last = (await writer.rows<{ last: number | string | null }>({ text: 'SELECT max(ingest_seq) AS last FROM events', values: [] }))[0];
      this.nextAppendNumber = Number(last?.last ?? 0) + 1;
    }
    const p = new Parameters(writer.dialect);
    const placeholders = rows.map((row) => {
      const appendNumber = writer.dialect.name === 'postgres' ? "nextval('events_ingest_seq')" : p.bigint(String(this.takeAppendNumber()));
      return [
        p.add(conversation.id),
        p.add(row.position),
        p.add(row.fileName),
        p.add(row.size),
        p.add(row.modifiedMs),
        p.add(row.eventId),
        p.add(row.kind),
        p.add(row.source),
        p.bigint(row.sortMicros),
        p.add(row.bodyText),
        p.utf8Text(row.searchText),
        p.add(row.payload),
        p.add(row.unlisted),
        p.conversationUuid(conversation.hex),
        appendNumber,
      ];
    });
    // A replaced large event's pieces go with it; the new version's, if it is large, follow its row.
    if (replacing) await writer.run(eventPiecesRemoval(writer.dialect, conversation.id, positionsOf(rows)));
    await writer.run({ text: this.eventInsert(writer.dialect, placeholders, replacing), values: p.values });
    for (const row of rows) {
      for (const statement of eventPieceInserts(writer.dialect, conversation.id, row.position, row.payload)) await writer.run(statement);
    }
  }

  /**
   * The INSERT of a batch, given each row's placeholders. Its text depends only on the
   * dialect, the number of rows and whether it replaces stored rows, so it is written once
   * per size: a batch's text is long, and building it, and finding SQLite's prepared
   * statement by it, cost more than binding the values. Replacing costs SQLite an upsert
   * per row, which fires the trigram index's trigger: a conversation read for the first
   * time is only added.
   */
  private eventInsert(dialect: SqlDialect, placeholders: string[][], replacing: boolean): string {
    const key = `${dialect.name}:${placeholders.length}:${replacing}`;
    let text = this.insertTexts.get(key);
    if (text === undefined) {
      text = `INSERT INTO events (conversation_id, position, file_name, file_size, file_modified_ms, event_id, kind, source, sort_micros, body_text, search_text, payload, unlisted, conversation_uuid, ingest_seq)
        VALUES ${placeholders.map((row) => `(${row.join(', ')})`).join(',\n')}`;
      if (replacing)
        text += `
        ON CONFLICT (conversation_id, position) DO UPDATE SET
          file_name = excluded.file_name, file_size = excluded.file_size, file_modified_ms = excluded.file_modified_ms, event_id = excluded.event_id,
          kind = excluded.kind, source = excluded.source, sort_micros = excluded.sort_micros, body_text = excluded.body_text,
          search_text = excluded.search_text, payload = excluded.payload, unlisted = excluded.unlisted`;
      this.insertTexts.set(key, text);
    }
    return text;
  }

  /** SQLite numbers appends here (PostgreSQL with its sequence): one past the highest stored. */
  private takeAppendNumber(): number {
    if (this.nextAppendNumber === undefined) throw new Error('append numbers not read');
    return this.nextAppendNumber++;
  }

  /** Files the database holds, and files it skipped, that are no longer in the directory. */
  private goneFiles(pending: PendingConversation): GoneFiles {
    const { listed, stored } = pending;
    if (listed === undefined) return { events: [], skipped: [] };
    return {
      events: [...stored].filter(([, file]) => !listed.has(file.name)).map(([position]) => position),
      skipped: [...pending.skipped.keys()].filter((name) => !listed.has(name)),
    };
  }

  /** Files no longer in the directory are no longer served; the events removed. */
  private async writeRemoved(writer: SqlWriter, pending: PendingConversation, gone: GoneFiles): Promise<number> {
    const { row } = pending;
    if (gone.events.length === 0 && gone.skipped.length === 0) return 0;
    const removed = gone.events.length === 0 ? 0 : await deleteEvents(writer, row.id, gone.events);
    if (gone.skipped.length > 0) {
      const p = new Parameters(writer.dialect);
      await writer.run({
        text: `DELETE FROM skipped_files WHERE conversation_id = ${p.add(row.id)} AND ${p.textList('file_name', gone.skipped.map(textColumn))}`,
        values: p.values,
      });
    }
    // A file skipped because a later one held its id is read again once that one is gone.
    const r = new Parameters(writer.dialect);
    await writer.run({
      text: `UPDATE skipped_files SET size = -1 WHERE conversation_id = ${r.add(row.id)} AND reason LIKE 'event id %'`,
      values: r.values,
    });
    const p = new Parameters(writer.dialect);
    const id = p.add(row.id);
    await writer.run({
      text: `UPDATE conversations SET event_count = event_count - ${p.add(removed)},
        skipped_count = (SELECT count(*) FROM skipped_files WHERE conversation_id = ${id}) WHERE id = ${id}`,
      values: p.values,
    });
    return removed;
  }

  private afterRemoved(pending: PendingConversation, gone: GoneFiles): void {
    for (const position of gone.events) pending.stored.delete(position);
    for (const name of gone.skipped) pending.skipped.delete(name);
  }

  close(): void {
    this.decoder.close();
    this.watch.close();
  }

  private reportOf(hex: string): StoredEventReport {
    let report = this.reports.get(hex);
    if (!report) {
      report = new StoredEventReport(hex, this.mode, this.options.logger);
      this.reports.set(hex, report);
    }
    return report;
  }

  private report(final: boolean): void {
    const now = performance.now();
    if (!final && now - this.lastReport < (this.options.progressMs ?? DEFAULT_PROGRESS_MS)) return;
    this.lastReport = now;
    this.options.onProgress?.({ ...this.progress, elapsedMs: now - this.passStarted });
  }
}

function positionsOf(rows: readonly EventRow[]): number[] {
  return rows.map((row) => row.position);
}

async function deleteEvents(writer: SqlWriter, conversationId: number, positions: readonly number[]): Promise<number> {
  const p = new Parameters(writer.dialect);
  const list = p.textList('CAST(position AS TEXT)', positions.map(String));
  return writer.run({ text: `DELETE FROM events WHERE conversation_id = ${p.add(conversationId)} AND ${list}`, values: p.values });
}

function changedSince(filePath: string, seen: ReadVersion): boolean {
  const version = versionOfPath(filePath);
  return version !== undefined && (version.size !== seen.size || version.modifiedMs !== seen.modifiedMs);
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

/** An error from reading the directory (it or a cause names a system call), not from the database. */
function isFileSystemError(error: unknown): boolean {
  for (
    let cause = error as { syscall?: unknown; cause?: unknown } | undefined;
    typeof cause === 'object' && cause !== null;
    cause = cause.cause as typeof cause
  )
    if (typeof cause.syscall === 'string') return true;
  return false;
}
