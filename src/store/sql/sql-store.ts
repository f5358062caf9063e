/**
 * The event store over an SQL database: SQLite (the index of a conversations directory,
 * sqlite/indexed-directory.ts) or PostgreSQL (servers sharing one database,
 * postgres/postgres-store.ts). It holds nothing per conversation: every answer comes from
 * the database, through the statements of queries.ts, so both databases answer alike.
 * The ingester (ingest/ingester.ts) fills it.
 */
import type { Logger } from '../../log';
import type { CrossSearchCriteria, EventFilters, EventKey, SearchCriteria } from '../../search';
import {
  type EventFeed,
  type EventStore,
  type ExportedEvent,
  type FeedEvent,
  LARGE_EVENT_BYTES,
  type LargeEvent,
  type StoredConversationSummary,
  type StoredHitPage,
  type StoredPage,
  type StoreHealth,
  emptyStoreHealth,
} from '../event-store';
import { emptyStoredEventCounts } from '../stored-event/counts';
import type { StoredEventMode } from '../stored-event/decide';
import { type SqlDatabase, isNotUtf8 } from './database';
import type { PayloadForm, TrigramUse } from './dialect';
import {
  type CursorKey,
  type ExportRow,
  type KeyedRow,
  acrossCountStatement,
  acrossLeadStatement,
  acrossPageStatement,
  acrossWindowStatement,
  type FeedOrder,
  feedLastStatement,
  feedStatement,
  conversationIdStatement,
  conversationListStatement,
  countStatement,
  cursorStatement,
  eventByIdStatement,
  exportBatchStatement,
  keyOfRow,
  pageStatement,
} from './queries';
import { type EventVersion, storedEventPieces } from './event-pieces';
import type { Statement } from './statement';

export interface SqlStoreOptions {
  logger: Logger;
  /** How often the /health counters are read again. */
  healthRefreshMs?: number;
  /** What the ingester does with properties the contract does not list; /health reports it. */
  storedEvents?: StoredEventMode;
  /** Wraps every database call: the PostgreSQL store turns an unreachable database into a 503 here. */
  guard?: <T>(what: string, call: () => Promise<T>) => Promise<T>;
}

const DEFAULT_HEALTH_REFRESH_MS = 2_000;
/** Events an export reads from the database at a time. */
const EXPORT_BATCH = 1000;
/** Message events a search across conversations for `body` checks one by one, from their index, before it walks the whole order. */
const BODY_WINDOW = 2000;
/**
 * Events a search across conversations for `text` alone checks one by one before it asks the
 * trigram index. Each is a row read from its own place in the file, since the order across
 * conversations interleaves them: a needle that the first events do not hold pays for all of
 * them before the walk that finds it, so the window is short.
 */
const TEXT_WINDOW = 500;
/**
 * Candidates of the trigram index a search across conversations fetches and sorts; with
 * more, it walks its ordered index instead (acrossLeadStatement). Either costs about as much here.
 */
const FEW_CANDIDATES = 2000;
const MAX_BIGINT = (2n ** 63n - 1n).toString();
/** A row of acrossLeadStatement: a page's row, or (null `hex`) only the count of candidates. */
type LedRow = KeyedRow & { candidates: number | string };

interface PageRow {
  event_id: string;
  ingest_seq: number | string;
  position: number | string;
  payload: Buffer;
}

export class SqlStore implements EventStore {
  private counters: StoreHealth;
  private readonly healthTimer: NodeJS.Timeout;
  private closed = false;
  private readonly guard: <T>(what: string, call: () => Promise<T>) => Promise<T>;

  constructor(
    readonly database: SqlDatabase,
    private readonly options: SqlStoreOptions,
  ) {
    this.counters = emptyStoreHealth(options.storedEvents);
    this.guard = options.guard ?? ((_what, call) => call());
    this.healthTimer = setInterval(() => void this.refreshHealth(), options.healthRefreshMs ?? DEFAULT_HEALTH_REFRESH_MS);
    this.healthTimer.unref();
  }

  search(hex: string, criteria: SearchCriteria): Promise<StoredPage | undefined> {
    return this.guard('search', async () => {
      const page = await this.pageRows(hex, criteria);
      return page && { itemsJson: page.rows.map((row) => row.payload), nextPageId: page.nextPageId };
    });
  }

  /** Events one by one for the socket, with their append numbers. */
  readonly feed: EventFeed = {
    searchEach: (hex, criteria) =>
      this.guard('search', async () => {
        const page = await this.pageRows(hex, criteria);
        return page && { events: page.rows.map(feedEventOf), nextPageId: page.nextPageId };
      }),
    appendedAfter: async (hex, position, limit) => {
      const page = await this.feedPage(hex, 'appended', position, limit);
      return page && { events: page.events, lastPosition: page.last ?? 0 };
    },
    storedAfter: async (hex, storageIndex, limit) => {
      const page = await this.feedPage(hex, 'storage', storageIndex, limit);
      return page && { events: page.events, lastStorageIndex: page.last ?? -1 };
    },
  };

  /** Up to `limit` events numbered after `after` in one of the feed's orders, and the highest number (null: none); undefined for an unknown conversation. */
  private feedPage(hex: string, order: FeedOrder, after: number, limit: number): Promise<{ events: FeedEvent[]; last: number | null } | undefined> {
    return this.guard('read appended events', async () => {
      const id = await this.conversationId(hex);
      if (id === undefined) return undefined;
      const from = Number.isFinite(after) ? String(Math.max(-1, Math.trunc(after))) : MAX_BIGINT;
      const last = (await this.database.rows<{ last: number | string | null }>(feedLastStatement(this.database.dialect, id, order)))[0]?.last;
      const rows = await this.payloadRows<PageRow>((form) => feedStatement(this.database.dialect, id, order, from, limit, form));
      return { events: rows.map(feedEventOf), last: last === null || last === undefined ? null : Number(last) };
    });
  }

  /** The conversation's row id; fails with the ingester's reason when its directory could not be read. */
  private async conversationId(hex: string): Promise<number | undefined> {
    const row = (await this.database.rows<{ id: number; unreadable: string | null }>(conversationIdStatement(this.database.dialect, hex)))[0];
    if (row?.unreadable) throw new Error(row.unreadable);
    return row === undefined ? undefined : Number(row.id);
  }

  /** A page's rows, with the id of the event the next page starts at; undefined when the conversation does not exist. */
  private async pageRows(hex: string, criteria: SearchCriteria): Promise<{ rows: PageRow[]; nextPageId: string | null } | undefined> {
    const id = await this.conversationId(hex);
    if (id === undefined) return undefined;
    let cursor: CursorKey | undefined;
    if (criteria.pageId !== undefined) {
      const row = (
        await this.database.rows<{ sort_micros: number | string; position: number | string }>(cursorStatement(this.database.dialect, id, criteria))
      )[0];
      // A cursor naming no event that passes the filters starts the walk over, as the reference does.
      if (row) cursor = { sortMicros: String(row.sort_micros), position: String(row.position) };
    }
    const rows = await this.payloadRows<PageRow>((form) => pageStatement(this.database.dialect, id, cursor, criteria, form));
    return { rows: rows.slice(0, criteria.limit), nextPageId: rows.length > criteria.limit ? rows[criteria.limit]!.event_id : null };
  }

  count(hex: string, filters: EventFilters): Promise<number | undefined> {
    return this.guard('count', async () => {
      const id = await this.conversationId(hex);
      if (id === undefined) return undefined;
      const row = (await this.database.indexWalk<{ count: number | string }>(countStatement(this.database.dialect, id, filters)))[0];
      return Number(row?.count ?? 0);
    });
  }

  getEvent(hex: string, eventId: string): Promise<Buffer | null | undefined> {
    return this.guard('get event', async () => {
      const id = await this.conversationId(hex);
      if (id === undefined) return undefined;
      const row = (await this.payloadRows<object>((form) => eventByIdStatement(this.database.dialect, id, eventId, form)))[0];
      return row ? row.payload : null;
    });
  }

  /** Every conversation with its event count, its last appended event's timestamp and its title, the most recent activity first. */
  listConversations(): Promise<StoredConversationSummary[]> {
    return this.guard('list conversations', async () => {
      const rows = await this.payloadRows<{ hex: string; title: string | null; event_count: number | string; last_payload: Buffer | null }>(
        (form) => conversationListStatement(form, this.database.dialect),
        'last_payload',
      );
      return rows.map((row) => ({
        hex: row.hex,
        title: row.title,
        eventCount: Number(row.event_count),
        lastEventAt: storedTimestamp(row.last_payload),
      }));
    });
  }

  /**
   * A page of the search across conversations: one walk of an ordered index from the
   * cursor's key. With `body` or `text`, first, where the database leaves the trigram
   * index's use to the statement, the page led by the index's rows when they are few
   * (acrossLeadStatement); else a bounded walk that checks every event
   * (acrossWindowStatement), which answers alone when the needle is common; else a walk of
   * the order that checks each row against the trigram index's rows, taken once (when they
   * were many), and stops at the page's last match, where sorting them all would not.
   */
  searchAll(criteria: CrossSearchCriteria): Promise<StoredHitPage> {
    return this.guard('search across conversations', async () => {
      const { dialect } = this.database;
      let rows: KeyedRow[] | undefined;
      let use: Exclude<TrigramUse, object> = 'lead';
      if (criteria.body !== undefined || criteria.text !== undefined) {
        if (acrossLeadStatement(dialect, criteria, FEW_CANDIDATES, 'bytea')) {
          const led = await this.payloadRows<LedRow>((form) => acrossLeadStatement(dialect, criteria, FEW_CANDIDATES, form)!, 'payload', true);
          if (Number(led[0]?.candidates ?? 0) > FEW_CANDIDATES) use = 'check';
          else rows = led.filter((row) => row.hex !== null);
        }
        if (!rows) {
          const window = await this.payloadRows<KeyedRow>(
            (form) => acrossWindowStatement(dialect, criteria, criteria.body === undefined ? TEXT_WINDOW : BODY_WINDOW, form),
            'payload',
            true,
          );
          if (window.length > criteria.limit) rows = window;
        }
      }
      rows ??= await this.payloadRows<KeyedRow>((form) => acrossPageStatement(dialect, criteria, form, use), 'payload', true);
      const hits = rows.slice(0, criteria.limit).map((row) => ({ key: keyOfRow(row), title: row.title ?? null, json: row.payload }));
      return { hits, next: rows.length > criteria.limit ? hits[hits.length - 1]!.key : null };
    });
  }

  countAll(filters: EventFilters): Promise<number> {
    return this.guard('count across conversations', async () => {
      const rows = await this.database.indexWalk<{ count: number | string }>(acrossCountStatement(this.database.dialect, filters));
      return Number(rows[0]?.count ?? 0);
    });
  }

  exportEvents(hex: string): Promise<AsyncIterable<ExportedEvent> | undefined> {
    return this.guard('export', async () => {
      const id = await this.conversationId(hex);
      return id === undefined ? undefined : this.exportBatches(id, hex);
    });
  }

  /**
   * The conversation in batches, each from the key after the last, so appends meanwhile
   * neither repeat nor skip an event. An event over LARGE_EVENT_BYTES is not read with its
   * batch: it comes as a LargeEvent, whose bytes are read only when asked for.
   */
  private async *exportBatches(conversationId: number, hex: string): AsyncGenerator<ExportedEvent> {
    let after: EventKey | undefined;
    for (;;) {
      const rows = await this.guard('export', () =>
        this.payloadRows<ExportRow>(
          (form) => exportBatchStatement(this.database.dialect, conversationId, hex, after, EXPORT_BATCH, LARGE_EVENT_BYTES, form),
          'payload',
          true,
        ),
      );
      for (const row of rows) yield row.payload ?? this.largeEvent(conversationId, row);
      if (rows.length < EXPORT_BATCH) return;
      after = keyOfRow(rows[rows.length - 1]!);
    }
  }

  private largeEvent(conversationId: number, row: ExportRow): LargeEvent {
    const version: EventVersion = {
      conversationId,
      position: Number(row.position),
      fileSize: String(row.file_size),
      fileModifiedMs: Number(row.file_modified_ms),
    };
    const size = Number(row.size);
    return {
      id: row.event_id,
      kind: row.kind,
      size,
      pieces: () => this.eventPieces(version, size),
    };
  }

  private eventPieces(version: EventVersion, size: number): AsyncGenerator<Buffer> {
    const rows = (statement: Statement) => this.guard('export', () => this.database.rows<{ payload: Buffer }>(statement));
    return storedEventPieces(rows, this.database.dialect, version, size);
  }

  /**
   * Rows of a statement that returns stored bytes, in the first payload form the database
   * accepts for them (PostgreSQL refuses text for bytes that are not UTF-8); text
   * payloads become bytes here.
   */
  private async payloadRows<Row extends object>(
    statement: (form: PayloadForm) => Statement,
    column = 'payload',
    walk = false,
  ): Promise<(Row & { payload: Buffer })[]> {
    const forms = this.database.payloadForms;
    for (let index = 0; ; index++) {
      const form = forms[index]!;
      try {
        const run = walk ? this.database.indexWalk.bind(this.database) : this.database.rows.bind(this.database);
        const rows = (await run<Record<string, unknown>>(statement(form))) as Record<string, unknown>[];
        for (const row of rows) {
          const value = row[column];
          if (typeof value === 'string') row[column] = Buffer.from(value, 'utf8');
        }
        return rows as (Row & { payload: Buffer })[];
      } catch (error) {
        if (index === forms.length - 1 || !isNotUtf8(error)) throw error;
      }
    }
  }

  health(): StoreHealth {
    return this.counters;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.healthTimer);
    await this.database.close();
  }

  /** Reads the counters /health shows; keeps the last ones while the database is away. */
  async refreshHealth(): Promise<void> {
    try {
      const { database } = this;
      const totals = (
        await database.rows<{ conversations: number | string; events: number | string | null }>({
          text: 'SELECT count(*) AS conversations, sum(event_count) AS events FROM conversations',
          values: [],
        })
      )[0];
      const unlisted = await database.rows<{ unlisted: string; count: number | string }>({
        text: 'SELECT unlisted, count(*) AS count FROM events WHERE unlisted IS NOT NULL GROUP BY unlisted',
        values: [],
      });
      const skipped = await database.rows<{ because: string; reason: string; count: number | string }>({
        text: 'SELECT because, reason, count(*) AS count FROM skipped_files GROUP BY because, reason',
        values: [],
      });
      const events = Number(totals?.events ?? 0);
      const counts = emptyStoredEventCounts(this.options.storedEvents ?? 'contract');
      for (const row of unlisted) {
        counts.servedWithUnlistedProperties += Number(row.count);
        for (const property of row.unlisted.split(','))
          counts.unlistedProperties[property] = (counts.unlistedProperties[property] ?? 0) + Number(row.count);
      }
      counts.servedAsStored = events - counts.servedWithUnlistedProperties;
      for (const row of skipped) {
        const count = Number(row.count);
        if (row.because === 'unknown-kind') counts.notServedByKind[row.reason] = (counts.notServedByKind[row.reason] ?? 0) + count;
        else if (row.because === 'unknown-value') counts.notServedByValue[row.reason] = (counts.notServedByValue[row.reason] ?? 0) + count;
        else counts.brokenFiles += count;
      }
      this.counters = {
        ...this.counters,
        conversationsLoaded: Number(totals?.conversations ?? 0),
        eventsLoaded: events,
        eventsSkipped: counts.brokenFiles,
        storedEvents: counts,
      };
    } catch (error) {
      if (!this.closed) this.options.logger.warn('cannot read the store counters for /health', { error: (error as Error).message });
    }
  }
}

function feedEventOf(row: PageRow): FeedEvent {
  return { position: Number(row.ingest_seq), storageIndex: Number(row.position), id: row.event_id, json: row.payload };
}

/** The `timestamp` of a stored event's JSON, or null. */
function storedTimestamp(payload: Buffer | null): string | null {
  if (!payload) return null;
  try {
    const { timestamp } = JSON.parse(payload.toString('utf8')) as { timestamp?: unknown };
    return typeof timestamp === 'string' ? timestamp : null;
  } catch {
    return null;
  }
}
