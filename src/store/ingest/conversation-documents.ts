/**
 * A conversation's documents as the ingester (ingester.ts) copies them: `meta.json` (and its
 * title) and `base_state.json`, which the catalog and the list of conversations read, with
 * the versions they were read at.
 */
import path from 'node:path';
import { LEFT_OUT_OF_CATALOG, META_FILE, STATE_FILE, entryOfFiles, parseJsonObject } from '../../catalog/catalog-entry';
import type { Logger } from '../../log';
import { documentStats, readDocument } from '../files/document-file';
import { versionOf } from '../files/file-version';
import type { SqlWriter } from '../sql/database';
import { storedSortMicros } from '../sql/sort-micros';
import { Parameters } from '../sql/statement';
import { nullableTextColumn } from '../sql/text-column';

/** Documents read of a conversation's directory, and the versions they were read at. */
export interface DocumentsRead {
  documents: Documents;
  stamp: string;
}

/**
 * The documents of the conversation in `directory`, copied again whenever either file
 * changes; undefined when neither did since they were read at `row.documents_stamp`. A
 * document that is not a regular file inside the root, or that cannot be handled (nested
 * deeper than the call stack reaches), is left out with a warning naming it. The caller
 * writes what this read (writeConversationDocuments), with the conversation's events when
 * they fit one transaction.
 */
export async function readConversationDocuments(
  realRoot: string,
  row: { hex: string; documents_stamp: string | null },
  directory: string,
  logger: Logger,
): Promise<DocumentsRead | undefined> {
  const metaFile = path.join(directory, META_FILE);
  const stateFile = path.join(directory, STATE_FILE);
  const [metaStats, stateStats] = await Promise.all([documentStats(realRoot, metaFile), documentStats(realRoot, stateFile)]);
  if (`${versionOf(metaStats)}|${versionOf(stateStats)}` === row.documents_stamp) return undefined;
  const [metaRead, stateRead] = await Promise.all([readDocument(realRoot, metaFile), readDocument(realRoot, stateFile)]);
  // The versions of what was read, which a write between the look and the read may have changed.
  const stamp = `${versionOf(metaRead.kind === 'text' ? metaRead.stats : undefined)}|${versionOf(stateRead.kind === 'text' ? stateRead.stats : undefined)}`;
  for (const [file, read] of [
    [metaFile, metaRead],
    [stateFile, stateRead],
  ] as const) {
    if (read.kind === 'refused') logger.warn('conversation file not read', { conversation: row.hex, file, reason: read.reason });
  }
  const documents = documentsOf(
    row.hex,
    metaRead.kind === 'text' ? metaRead.text : undefined,
    stateRead.kind === 'text' ? stateRead.text : undefined,
  );
  if (documents.problem) logger.warn(documents.problem, { conversation: row.hex, file: metaFile });
  return { documents, stamp };
}

/** Writes what readConversationDocuments read into the conversation's row and its documents' row. */
export async function writeConversationDocuments(
  writer: SqlWriter,
  row: { id: number; hex: string },
  { documents, stamp }: DocumentsRead,
): Promise<void> {
  const p = new Parameters(writer.dialect);
  await writer.run({
    text: `UPDATE conversations SET title = ${p.add(nullableTextColumn(documents.title))}, documents_stamp = ${p.add(stamp)} WHERE id = ${p.add(row.id)}`,
    values: p.values,
  });
  if (documents.meta === undefined && documents.state === undefined) {
    const d = new Parameters(writer.dialect);
    await writer.run({ text: `DELETE FROM conversation_documents WHERE conversation_id = ${d.add(row.id)}`, values: d.values });
    return;
  }
  const u = new Parameters(writer.dialect);
  await writer.run({
    text: `INSERT INTO conversation_documents (conversation_id, hex, meta, state, in_catalog, execution_status, created_micros, updated_micros, parent_hex)
      VALUES (${u.add(row.id)}, ${u.add(row.hex)}, ${u.add(documents.meta ?? null)}, ${u.add(documents.state ?? null)}, ${u.add(documents.inCatalog)},
        ${u.add(documents.status)}, ${u.bigint(documents.createdMicros)}, ${u.bigint(documents.updatedMicros)}, ${u.add(documents.parentHex)})
      ON CONFLICT (conversation_id) DO UPDATE SET
        meta = excluded.meta, state = excluded.state, in_catalog = excluded.in_catalog, execution_status = excluded.execution_status,
        created_micros = excluded.created_micros, updated_micros = excluded.updated_micros, parent_hex = excluded.parent_hex`,
    values: u.values,
  });
}

/** What the catalog keeps of a conversation's documents, read with the catalog's own rules (catalog-entry.ts). */
interface Documents {
  title: string | null;
  meta: string | undefined;
  state: string | undefined;
  inCatalog: boolean;
  status: string;
  createdMicros: string;
  updatedMicros: string;
  parentHex: string | null;
  problem?: string;
}

function documentsOf(hex: string, metaText: string | undefined, stateText: string | undefined): Documents {
  try {
    const meta = metaText === undefined ? undefined : parseJsonObject(metaText);
    const savedState = stateText === undefined ? undefined : parseJsonObject(stateText);
    const entry = entryOfFiles(hex, meta, savedState, stateText !== undefined);
    const title = typeof meta?.['title'] === 'string' && meta['title'].trim() !== '' ? meta['title'] : null;
    return {
      title,
      // Parsed JSON written out again holds no U+0000 (JSON escapes it), so text columns take it.
      meta: meta ? JSON.stringify(meta) : undefined,
      state: savedState ? JSON.stringify(savedState) : undefined,
      inCatalog: entry !== undefined,
      status: entry?.status ?? 'idle',
      createdMicros: storedSortMicros(entry?.createdAt),
      updatedMicros: storedSortMicros(entry?.updatedAt),
      parentHex: entry?.parentHex ?? null,
      problem: metaText !== undefined && !entry ? LEFT_OUT_OF_CATALOG : undefined,
    };
  } catch (error) {
    // Parsing is not recursive, writing out and the catalog's rules are: a document nested
    // deeper than the call stack reaches is left out, and the ingester goes on.
    const empty = storedSortMicros(undefined);
    return {
      title: null,
      meta: undefined,
      state: undefined,
      inCatalog: false,
      status: 'idle',
      createdMicros: empty,
      updatedMicros: empty,
      parentHex: null,
      problem: `conversation left out of the catalog: its meta.json or base_state.json cannot be read (${error instanceof RangeError ? 'nested too deeply' : (error as Error).message})`,
    };
  }
}
