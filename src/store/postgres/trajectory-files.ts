/**
 * A conversation's files for the trajectory download, rebuilt from what the database holds
 * of its directory: `meta.json` and `base_state.json` as the ingester stored them, and one
 * `events/<file name>` per stored event with its stored bytes. The listing reads names and
 * times only; bodies are read as the archive reaches them, a page at a time by position,
 * the next page asked for while the archive works through the current one, so memory holds
 * at most two pages whatever the conversation's size.
 *
 * Each file's time is the newest the database knows for it (it keeps no file times): an
 * event's own timestamp, the conversation's `updated_at` (meta.json) for the two documents,
 * the newest event's for `events/`; the time of the download when there is none.
 */
import type { Pool } from 'pg';
import { META_FILE, STATE_FILE } from '../../catalog/catalog-entry';
import type { ConversationFile, OpenedFile } from '../../catalog/conversation-catalog';
import { guarded } from './connection';
import { POSTGRES } from '../sql/dialect';
import { type EventVersion, storedEventPieces } from '../sql/event-pieces';
import type { Statement } from '../sql/statement';
import { LARGE_EVENT_BYTES } from '../event-store';

/** Event bodies one query reads at most, by count and by size. */
export const PAGE_EVENTS = 100;
const PAGE_BYTES = 4 * 1024 * 1024;
/** The `sort_micros` of an event without a readable timestamp (sort-micros.ts). */
const NO_TIMESTAMP = (-(2n ** 63n)).toString();
/** The range of times a zip entry holds (MS-DOS dates: 1980 to 2107). */
const EARLIEST_ZIP_MS = Date.UTC(1980, 0, 2);
const LATEST_ZIP_MS = Date.UTC(2107, 11, 30);

interface ListedEvent {
  position: string;
  file_name: string;
  sort_micros: string;
  size: number;
  file_size: string;
  file_modified_ms: number;
}

/** The conversation's files in path order; undefined when the database holds no such conversation. */
export function trajectoryFiles(pool: Pool, hex: string, now = new Date()): Promise<ConversationFile[] | undefined> {
  return guarded('list trajectory files', async () => {
    const conversation = (
      await pool.query<{ id: number; meta_size: number | null; state_size: number | null; updated_micros: string | null }>(
        `SELECT c.id, octet_length(d.meta) AS meta_size, octet_length(d.state) AS state_size, d.updated_micros
           FROM conversations c LEFT JOIN conversation_documents d ON d.conversation_id = c.id WHERE c.hex = $1`,
        [hex],
      )
    ).rows[0];
    if (!conversation) return undefined;
    const events = (await pool.query<ListedEvent>(trajectoryListingStatement(conversation.id))).rows;
    const updatedAt = timeOf(conversation.updated_micros, now);
    const document = (file: string, column: 'meta' | 'state', size: number): ConversationFile => ({
      relativePath: file,
      modifiedAt: updatedAt,
      size,
      read: () => readDocument(pool, conversation.id, column),
    });
    const bodies = new EventBodies(pool, conversation.id);
    const files: ConversationFile[] = [];
    // Path order, component by component, as the directory catalog lists: base_state.json, events/..., meta.json.
    if (conversation.state_size !== null) files.push(document(STATE_FILE, 'state', conversation.state_size));
    if (events.length > 0) {
      const newest = events.reduce((latest, event) => (BigInt(event.sort_micros) > BigInt(latest) ? event.sort_micros : latest), NO_TIMESTAMP);
      files.push({ relativePath: 'events/', modifiedAt: timeOf(newest, now), size: 0, read: async () => Buffer.alloc(0) });
      // Position order is the directory's name order: every name carries its index in the same number of digits (five for any zip's worth).
      for (const event of events) {
        files.push({
          relativePath: `events/${event.file_name}`,
          modifiedAt: timeOf(event.sort_micros, now),
          size: event.size,
          // A large event is opened and read in pieces (no page of bodies holds it): only a smaller one is read.
          read: () => bodies.read(event.position),
          open: async () => largeEventFile(pool, conversation.id, event),
        });
      }
    }
    if (conversation.meta_size !== null) files.push(document(META_FILE, 'meta', conversation.meta_size));
    return files;
  });
}

/**
 * A large event read in pieces (event_pieces), as often as the archive asks; a reading fails,
 * and so cuts the download, once the event is removed or replaced.
 */
function largeEventFile(pool: Pool, conversationId: number, event: ListedEvent): OpenedFile {
  const version: EventVersion = {
    conversationId,
    position: Number(event.position),
    fileSize: event.file_size,
    fileModifiedMs: event.file_modified_ms,
  };
  const rows = (statement: Statement) => guarded('read trajectory events', async () => (await pool.query<{ payload: Buffer }>(statement)).rows);
  return { pieces: () => storedEventPieces(rows, POSTGRES, version, event.size), close: async () => undefined };
}

async function readDocument(pool: Pool, conversationId: number, column: 'meta' | 'state'): Promise<Buffer | undefined> {
  return guarded('read trajectory file', async () => {
    const row = (
      await pool.query<{ text: string | null }>(`SELECT ${column} AS text FROM conversation_documents WHERE conversation_id = $1`, [conversationId])
    ).rows[0];
    return row?.text == null ? undefined : Buffer.from(row.text, 'utf8');
  });
}

/**
 * The stored bytes of a conversation's events, read a page at a time as the archive asks
 * for them in position order; the page after is read while the archive works through the
 * current one. An event deleted since the listing reads as undefined (the archive leaves
 * it out, as it leaves out a file deleted from a directory).
 */
class EventBodies {
  private page = new Map<string, Buffer>();
  /** Every position up to this one has been read: one missing from the page is not stored. */
  private covered: bigint | undefined;
  private next: { from: bigint; page: Promise<BodyPage> } | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly conversationId: number,
  ) {}

  async read(position: string): Promise<Buffer | undefined> {
    const wanted = BigInt(position);
    while (this.covered === undefined || wanted > this.covered) {
      const pending = this.next !== undefined && this.next.from <= wanted ? this.next.page : this.readPage(wanted);
      this.next = undefined;
      const { bodies, coversThrough } = await pending;
      this.page = bodies;
      this.covered = coversThrough;
      if (coversThrough < LAST_POSITION) this.prefetch(coversThrough + 1n);
    }
    const body = this.page.get(position);
    this.page.delete(position);
    return body;
  }

  private prefetch(from: bigint): void {
    const page = this.readPage(from);
    // Awaited by the read that needs it; this keeps a failure meanwhile from being reported as unhandled.
    page.catch(() => undefined);
    this.next = { from, page };
  }

  /** The bodies from `from` on (eventBodiesStatement). */
  private readPage(from: bigint): Promise<BodyPage> {
    return guarded('read trajectory events', async () => {
      const rows = (await this.pool.query<{ position: string; payload: Buffer }>(eventBodiesStatement(this.conversationId, from.toString()))).rows;
      return {
        bodies: new Map(rows.map((row) => [row.position, row.payload])),
        // An empty page is the end: nothing is stored from `from` on.
        coversThrough: rows.length === 0 ? LAST_POSITION : BigInt(rows[rows.length - 1]!.position),
      };
    });
  }
}

/** The conversation's event files, without their bodies (their sizes are read without reading them): one walk of the primary key. */
export function trajectoryListingStatement(conversationId: number): Statement {
  return {
    text: 'SELECT position, file_name, sort_micros, octet_length(payload) AS size, file_size, file_modified_ms FROM events WHERE conversation_id = $1 ORDER BY position',
    values: [conversationId],
  };
}

/**
 * A page of bodies from position `from` on: up to PAGE_EVENTS of them, cut before the one
 * that would pass PAGE_BYTES, so no page is more than that on the wire; events over
 * LARGE_EVENT_BYTES are left out (the archive opens each and reads it in pieces). One walk
 * of the primary key from `from`.
 */
export function eventBodiesStatement(conversationId: number, from: string): Statement {
  return {
    text: `SELECT position, payload FROM (
             SELECT position, payload,
                    coalesce(sum(octet_length(payload)) OVER (ORDER BY position ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
               FROM events WHERE conversation_id = $1 AND position >= $2 AND octet_length(payload) <= $5 ORDER BY position LIMIT $3) page
            WHERE before < $4`,
    values: [conversationId, from, PAGE_EVENTS, PAGE_BYTES, LARGE_EVENT_BYTES],
  };
}

interface BodyPage {
  bodies: Map<string, Buffer>;
  coversThrough: bigint;
}

const LAST_POSITION = 2n ** 63n - 1n;

/** A `sort_micros` value as a time a zip entry can hold; `fallback` when there is none. */
function timeOf(micros: string | null, fallback: Date): Date {
  if (micros === null || micros === NO_TIMESTAMP) return fallback;
  const ms = Number(BigInt(micros) / 1000n);
  return ms >= EARLIEST_ZIP_MS && ms <= LATEST_ZIP_MS ? new Date(ms) : fallback;
}
