/**
 * The event store over PostgreSQL, for servers that share one database (or read a hot
 * standby of it). It holds nothing per conversation: every request is answered by the
 * database, so any number of servers answer alike. The ingester (ingest.ts) fills it.
 */
import type { Pool } from 'pg';
import type { ConversationCatalog } from '../../catalog/conversation-catalog';
import type { Logger } from '../../log';
import type { CrossSearchCriteria, EventFilters, EventKey, SearchCriteria } from '../../search';
import {
  type EventFeed,
  type EventStore,
  type FeedEvent,
  type StoredConversationSummary,
  type StoredHitPage,
  type StoredPage,
  type StoreHealth,
  emptyStoreHealth,
} from '../event-store';
import { type KeyedRow, acrossCountStatement, acrossPageStatement, conversationIdStatement, exportBatchStatement, keyOfRow } from './across-query';
import { DEFAULT_CONNECTION_SETTINGS, createPool, describeDatabaseError, guarded, redactedUrl, type ConnectionSettings } from './connection';
import {
  appendedStatement,
  countStatement,
  cursorStatement,
  eventByIdStatement,
  firstPageStatement,
  type PayloadForm,
  pageFromCursorStatement,
  type Statement,
} from './event-query';
import { latestSchemaVersion, schemaVersion } from './migrations';
import { createPostgresCatalog } from './postgres-catalog';

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

const DEFAULT_HEALTH_REFRESH_MS = 2_000;
/** Events an export reads from the database at a time. */
const EXPORT_BATCH = 1000;

/**
 * Connects, checks that the schema is at the version this code expects, and returns the
 * store. Rejects with a DatabaseStartError when the database cannot be reached or is not
 * migrated; the server does not migrate (it may be pointed at a read-only standby).
 */
export async function openPostgresStore(databaseUrl: string, options: PostgresStoreOptions): Promise<PostgresStore> {
  const pool = createPool(databaseUrl, options.logger, options.settings ?? DEFAULT_CONNECTION_SETTINGS);
  let payloadForm: PayloadForm;
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
    payloadForm = encoding === 'UTF8' ? 'text' : 'bytea';
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (error instanceof DatabaseStartError) throw error;
    throw new DatabaseStartError(
      `Cannot use the database at ${redactedUrl(databaseUrl)}: ${describeDatabaseError(error)}. Check that PostgreSQL is running and that --database-url (or DATABASE_URL) names it.`,
    );
  }
  const store = new PostgresStore(pool, options.logger, options.healthRefreshMs ?? DEFAULT_HEALTH_REFRESH_MS, payloadForm);
  await store.refreshHealth();
  return store;
}

interface CursorRow {
  id: number;
  sort_micros: string | null;
  position: string | null;
}

export class PostgresStore implements EventStore {
  // Nothing is held in this process: the database holds the events, so no bytes and no budget.
  private counters: StoreHealth = emptyStoreHealth();
  private readonly healthTimer: NodeJS.Timeout;
  /** The conversations catalog over the same database: what the ingester copied of `meta.json` and `base_state.json`. */
  readonly catalog: ConversationCatalog;
  private closed = false;

  constructor(
    private readonly pool: Pool,
    private readonly logger: Logger,
    healthRefreshMs: number,
    private readonly payloadForm: PayloadForm = 'bytea',
  ) {
    this.healthTimer = setInterval(() => void this.refreshHealth(), healthRefreshMs);
    this.healthTimer.unref();
    this.catalog = createPostgresCatalog(pool);
  }

  /** One page of a search; undefined when the conversation does not exist. */
  search(hex: string, criteria: SearchCriteria): Promise<StoredPage | undefined> {
    return guarded('search', async () => {
      const page = await this.pageRows(hex, criteria);
      return page && { itemsJson: page.rows.map((row) => row.payload), nextPageId: page.nextPageId };
    });
  }

  /**
   * Events one by one for the socket, with their append numbers: every server on the
   * database reads them alike, so each delivers what the ingester appends.
   */
  readonly feed: EventFeed = {
    searchEach: (hex, criteria) =>
      guarded('search', async () => {
        const page = await this.pageRows(hex, criteria);
        return page && { events: page.rows.map(feedEventOf), nextPageId: page.nextPageId };
      }),
    appendedAfter: (hex, position, limit) =>
      guarded('read appended events', async () => {
        const after = Number.isFinite(position) ? String(Math.max(0, Math.trunc(position))) : MAX_BIGINT;
        const rows = await this.payloadRows<{ last_seq: string | null; event_id: string | null; ingest_seq: string | null }>((form) =>
          appendedStatement(hex, after, limit, form),
        );
        if (rows.length === 0) return undefined;
        const events = rows.filter((row) => row.event_id !== null).map(feedEventOf);
        return { events, lastPosition: Number(rows[0]!.last_seq ?? 0) };
      }),
  };

  /** A page's rows, with the id of the event the next page starts at; undefined when the conversation does not exist. */
  private async pageRows(hex: string, criteria: SearchCriteria): Promise<{ rows: PageRow[]; nextPageId: string | null } | undefined> {
    if (criteria.pageId === undefined) {
      const rows = await this.payloadRows<{ id: number; event_id: string | null; ingest_seq: string | null }>((form) =>
        firstPageStatement(hex, criteria, form),
      );
      if (rows.length === 0) return undefined;
      return pageOf(
        rows.filter((row): row is PageRow & { id: number } => row.event_id !== null),
        criteria.limit,
      );
    }
    const cursor = (await this.pool.query<CursorRow>(cursorStatement(hex, criteria))).rows[0];
    if (!cursor) return undefined;
    const key = { sortMicros: cursor.sort_micros, position: cursor.position };
    const rows = await this.payloadRows<{ event_id: string; ingest_seq: string }>((form) => pageFromCursorStatement(cursor.id, key, criteria, form));
    return pageOf(rows as PageRow[], criteria.limit);
  }

  /** How many events pass the filters; undefined when the conversation does not exist. */
  count(hex: string, filters: EventFilters): Promise<number | undefined> {
    return guarded('count', async () => {
      const row = (await this.pool.query<{ count: string }>(countStatement(hex, filters))).rows[0];
      return row ? Number(row.count) : undefined;
    });
  }

  /** The event's stored bytes; null when the conversation has no such event, undefined when there is no conversation. */
  getEvent(hex: string, eventId: string): Promise<Buffer | null | undefined> {
    return guarded('get event', async () => {
      const row = (await this.payloadRows<object>((form) => eventByIdStatement(hex, eventId, form)))[0];
      return row ? row.payload : undefined;
    });
  }

  /**
   * Every conversation with its event count and its last appended event's timestamp, the
   * most recent activity first, and the title the ingester copied from `meta.json`.
   */
  listConversations(): Promise<StoredConversationSummary[]> {
    return guarded('list conversations', async () => {
      const result = await this.pool.query<{ hex: string; title: string | null; event_count: string; last_payload: Buffer | null }>(
        `SELECT c.hex, c.title, c.event_count, last.payload AS last_payload, last.sort_micros
           FROM conversations c
           LEFT JOIN LATERAL (SELECT e.payload, e.sort_micros FROM events e WHERE e.conversation_id = c.id ORDER BY e.position DESC LIMIT 1) last ON true
          ORDER BY last.sort_micros DESC NULLS LAST, c.hex`,
      );
      return result.rows.map((row) => ({
        hex: row.hex,
        title: row.title,
        eventCount: Number(row.event_count),
        lastEventAt: storedTimestamp(row.last_payload),
      }));
    });
  }

  /** A page of the search across conversations: one walk of an ordered index from the cursor's key. */
  searchAll(criteria: CrossSearchCriteria): Promise<StoredHitPage> {
    return guarded('search across conversations', async () => {
      const rows = await this.indexWalk<KeyedRow>((form) => acrossPageStatement(criteria, form));
      const hits = rows.slice(0, criteria.limit).map((row) => ({ key: keyOfRow(row), title: row.title ?? null, json: row.payload }));
      return { hits, next: rows.length > criteria.limit ? hits[hits.length - 1]!.key : null };
    });
  }

  countAll(filters: EventFilters): Promise<number> {
    return guarded('count across conversations', async () => {
      const rows = await this.indexWalk<{ count: string }>(() => acrossCountStatement(filters));
      return Number(rows[0]?.count ?? 0);
    });
  }

  exportEvents(hex: string): Promise<AsyncIterable<Buffer> | undefined> {
    return guarded('export', async () => {
      const row = (await this.pool.query<{ id: number }>(conversationIdStatement(hex))).rows[0];
      return row ? this.exportBatches(row.id, hex) : undefined;
    });
  }

  /** The conversation in batches, each from the key after the last, so appends meanwhile neither repeat nor skip an event. */
  private async *exportBatches(conversationId: number, hex: string): AsyncGenerator<Buffer> {
    let after: EventKey | undefined;
    for (;;) {
      const rows = await guarded('export', () =>
        this.indexWalk<KeyedRow>((form) => exportBatchStatement(conversationId, hex, after, EXPORT_BATCH, form)),
      );
      for (const row of rows) yield row.payload;
      if (rows.length < EXPORT_BATCH) return;
      after = keyOfRow(rows[rows.length - 1]!);
    }
  }

  /**
   * Runs a statement in a read-only transaction with sequential scans switched off, so the
   * planner walks an index even where it would guess a scan of the table cheaper; payloads
   * come in this store's form, as bytea when the text form meets bytes that are not UTF-8.
   */
  private async indexWalk<Row extends object>(statement: (form: PayloadForm) => Statement): Promise<(Row & { payload: Buffer })[]> {
    if (this.payloadForm === 'text') {
      try {
        const rows = await this.inIndexWalkTransaction<Row & { payload?: string | Buffer }>(statement('text'));
        return rows.map((row) => ({ ...row, payload: typeof row.payload === 'string' ? Buffer.from(row.payload, 'utf8') : (row.payload as Buffer) }));
      } catch (error) {
        if (!isNotUtf8(error)) throw error;
      }
    }
    return this.inIndexWalkTransaction<Row & { payload: Buffer }>(statement('bytea'));
  }

  private async inIndexWalkTransaction<Row extends object>(statement: Statement): Promise<Row[]> {
    const client = await this.pool.connect();
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
  }

  /**
   * Runs a statement that returns stored bytes, in this store's payload form; rows whose
   * bytes are not valid UTF-8 make the text form fail, and the statement runs again as bytea.
   */
  private async payloadRows<Row extends object>(statement: (form: PayloadForm) => Statement): Promise<(Row & { payload: Buffer | null })[]> {
    if (this.payloadForm === 'text') {
      try {
        const result = await this.pool.query<Row & { payload: string | null }>(statement('text'));
        return result.rows.map((row) => ({ ...row, payload: row.payload === null ? null : Buffer.from(row.payload, 'utf8') }));
      } catch (error) {
        if (!isNotUtf8(error)) throw error;
      }
    }
    return (await this.pool.query<Row & { payload: Buffer | null }>(statement('bytea'))).rows;
  }

  health(): StoreHealth {
    return { ...this.counters, storedEvents: { ...this.counters.storedEvents, brokenFiles: this.counters.eventsSkipped } };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.healthTimer);
    await this.pool.end();
  }

  /** Reads the counters /health shows; keeps the last ones while the database is away. */
  async refreshHealth(): Promise<void> {
    try {
      const result = await this.pool.query<{ conversations: string; events: string; skipped: string }>(
        'SELECT count(*) AS conversations, coalesce(sum(event_count), 0) AS events, coalesce(sum(skipped_count), 0) AS skipped FROM conversations',
      );
      const row = result.rows[0]!;
      this.counters = {
        ...this.counters,
        conversationsLoaded: Number(row.conversations),
        eventsLoaded: Number(row.events),
        eventsSkipped: Number(row.skipped),
      };
    } catch (error) {
      if (!this.closed) this.logger.warn('cannot read the store counters for /health', { error: describeDatabaseError(error) });
    }
  }
}

/** The database refused to read bytes as UTF-8 text (SQLSTATE 22021); read by shape, as connection.ts does. */
function isNotUtf8(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === '22021';
}

interface PageRow {
  event_id: string;
  ingest_seq: string;
  payload: Buffer;
}

function pageOf(rows: readonly PageRow[], limit: number): { rows: PageRow[]; nextPageId: string | null } {
  return { rows: rows.slice(0, limit), nextPageId: rows.length > limit ? rows[limit]!.event_id : null };
}

const MAX_BIGINT = (2n ** 63n - 1n).toString();

function feedEventOf(row: { event_id: string | null; ingest_seq: string | null; payload: Buffer | null }): FeedEvent {
  return { position: Number(row.ingest_seq), id: row.event_id ?? '', json: row.payload ?? Buffer.alloc(0) };
}

/** The `timestamp` of a stored event's JSON, or null. */
function storedTimestamp(payload: Buffer | null): string | null {
  if (!payload) return null;
  const { timestamp } = JSON.parse(payload.toString('utf8')) as { timestamp?: unknown };
  return typeof timestamp === 'string' ? timestamp : null;
}
