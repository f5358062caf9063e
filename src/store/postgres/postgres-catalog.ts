/**
 * The conversations catalog over PostgreSQL: the `meta.json` and `base_state.json` the
 * ingester copied (conversation_documents), composed, ordered and paged by the rules the
 * directory catalog follows (src/catalog/catalog-entry.ts), so both answer alike. Filtering,
 * ordering and the page's start are one walk of an ordered index; the composition, and the
 * masking of secrets in it, is the shared code's, at serve time.
 * The trajectory download is rebuilt from the same rows (trajectory-files.ts).
 */
import type { Pool } from 'pg';
import { type CatalogEntry, catalogEntry, cutPage, infoOf, parseJsonObject, sortKeyOf } from '../../catalog/catalog-entry';
import type { CatalogPage, CatalogSearch, ConversationCatalog, ConversationFile } from '../../catalog/conversation-catalog';
import { type JsonObject, servedState } from '../../catalog/conversation-info';
import type { ConversationExecutionStatus, ConversationInfo } from '../../contract';
import { hyphenate } from '../../search';
import { KnownSecrets, knownSecretsOf } from '../../secrets';
import { textColumn } from '../sql/text-column';
import { guarded } from './connection';
import { trajectoryFiles } from './trajectory-files';

interface DocumentRow {
  hex: string;
  meta: string;
  state: string | null;
}

export function createPostgresCatalog(pool: Pool): ConversationCatalog {
  return new PostgresCatalog(pool);
}

class PostgresCatalog implements ConversationCatalog {
  constructor(private readonly pool: Pool) {}

  search(query: CatalogSearch): Promise<CatalogPage> {
    return guarded('search conversations', async () => {
      const { byCreation, descending } = sortKeyOf(query.sortOrder);
      const column = byCreation ? 'created_micros' : 'updated_micros';
      const direction = descending ? 'DESC' : 'ASC';
      const status = query.status ?? null;
      // The page starts at its id's entry; an id the filtered catalog does not hold starts it at the first.
      let start: { micros: string; hex: string } | undefined;
      // PostgreSQL text holds no U+0000: such a page id names no entry (conversation ids are hex), so it is compared as its stand-in.
      if (query.pageId) {
        const found = await this.pool.query<{ micros: string }>(
          `SELECT ${column} AS micros FROM conversation_documents WHERE in_catalog AND hex = $1 AND ($2::text IS NULL OR execution_status = $2)`,
          [textColumn(query.pageId), status],
        );
        if (found.rows[0]) start = { micros: found.rows[0].micros, hex: query.pageId };
      }
      // Entries without a saved state are passed over without counting toward the limit: read in batches until the page is full.
      const batch = query.limit + 1;
      const pool = this.pool;
      async function* ordered(): AsyncGenerator<CatalogEntry> {
        let from = start;
        let inclusive = true;
        for (;;) {
          const after =
            from === undefined
              ? 'true'
              : descending
                ? `(${column} < $3 OR (${column} = $3 AND hex ${inclusive ? '>=' : '>'} $4))`
                : `(${column} > $3 OR (${column} = $3 AND hex ${inclusive ? '>=' : '>'} $4))`;
          const rows = (
            await pool.query<DocumentRow & { micros: string }>(
              `SELECT hex, meta, state, ${column} AS micros FROM conversation_documents
                WHERE in_catalog AND ($1::text IS NULL OR execution_status = $1) AND ${after}
                ORDER BY ${column} ${direction}, hex LIMIT $2`,
              [status, batch, ...(from === undefined ? [] : [from.micros, from.hex])],
            )
          ).rows;
          for (const row of rows) yield entryOf(row);
          if (rows.length < batch) return;
          const last = rows[rows.length - 1]!;
          from = { micros: last.micros, hex: last.hex };
          inclusive = false;
        }
      }
      const page = await cutPage(ordered(), query.limit);
      const children = await this.childrenOf(page.entries.map((entry) => entry.hex));
      return {
        items: page.entries.flatMap((entry) => infoOf(entry, query.includeSkills, children.get(entry.hex) ?? []) ?? []),
        nextPageId: page.nextPageId,
      };
    });
  }

  count(status?: ConversationExecutionStatus): Promise<number> {
    return guarded('count conversations', async () => {
      const result = await this.pool.query<{ count: string }>(
        'SELECT count(*) AS count FROM conversation_documents WHERE in_catalog AND ($1::text IS NULL OR execution_status = $1)',
        [status ?? null],
      );
      return Number(result.rows[0]?.count ?? 0);
    });
  }

  get(hex: string, includeSkills: boolean): Promise<ConversationInfo | undefined> {
    return guarded('get conversation', async () => {
      const row = (
        await this.pool.query<DocumentRow>(
          'SELECT hex, meta, state FROM conversation_documents WHERE in_catalog AND hex = $1 AND state IS NOT NULL',
          [hex],
        )
      ).rows[0];
      if (!row) return undefined;
      return infoOf(entryOf(row), includeSkills, (await this.childrenOf([hex])).get(hex) ?? []);
    });
  }

  state(hex: string): Promise<JsonObject | undefined> {
    return guarded('read saved state', async () => {
      const row = (await this.pool.query<{ state: string | null }>('SELECT state FROM conversation_documents WHERE hex = $1', [hex])).rows[0];
      const state = row?.state ? parseJsonObject(row.state) : undefined;
      return state && servedState(state);
    });
  }

  knownSecrets(hex: string): Promise<KnownSecrets> {
    return guarded('read saved state', async () => {
      const row = (await this.pool.query<{ state: string | null }>('SELECT state FROM conversation_documents WHERE hex = $1', [hex])).rows[0];
      return row?.state ? knownSecretsOf(parseJsonObject(row.state)) : KnownSecrets.NONE;
    });
  }

  files(hex: string): Promise<ConversationFile[] | undefined> {
    return trajectoryFiles(this.pool, hex);
  }

  /** Conversations whose `meta.json` names one of these as their parent, in id order, as hyphenated UUIDs. */
  private async childrenOf(parents: readonly string[]): Promise<Map<string, string[]>> {
    const children = new Map<string, string[]>();
    if (parents.length === 0) return children;
    const result = await this.pool.query<{ parent_hex: string; hex: string }>(
      'SELECT parent_hex, hex FROM conversation_documents WHERE in_catalog AND parent_hex = ANY($1::text[]) ORDER BY parent_hex, hex',
      [parents],
    );
    for (const row of result.rows) {
      const list = children.get(row.parent_hex) ?? [];
      list.push(hyphenate(row.hex));
      children.set(row.parent_hex, list);
    }
    return children;
  }
}

/** The row's entry; the ingester stored only rows whose meta.json (and state, when there is one) parsed. */
function entryOf(row: DocumentRow): CatalogEntry {
  return catalogEntry(row.hex, parseJsonObject(row.meta) ?? {}, row.state === null ? undefined : parseJsonObject(row.state));
}
