/**
 * One conversation as the catalog sees it, read from its `meta.json` and `base_state.json`,
 * and the rules every catalog applies to entries: which files make an entry, how entries
 * are ordered, how a page is cut. Both stores' catalogs (directory-catalog.ts, and the
 * PostgreSQL one, which the ingester fills from the same files) use these, so they answer alike.
 */
import type { ConversationExecutionStatus, ConversationInfo, ConversationSortOrder } from '../contract';
import { jsonDepth } from '../json/json-depth';
import { parseUuid, storedTimestampMicros } from '../search';
import { type JsonObject, composeConversationInfo, executionStatusOf, isObject } from './conversation-info';

export const META_FILE = 'meta.json';
export const STATE_FILE = 'base_state.json';
/** What is logged for a conversation whose files make no entry. */
export const LEFT_OUT_OF_CATALOG =
  'conversation left out of the catalog: its meta.json or base_state.json is not a JSON object, or nests deeper than the reference reads';
/**
 * The deepest nesting the reference reads in a saved document: it reads them with
 * pydantic-core, whose JSON parser refuses anything deeper. A document nested deeper is
 * refused here too, whole, rather than served in part or allowed to exhaust a stack.
 */
export const MAX_DOCUMENT_DEPTH = 200;

export interface CatalogEntry {
  hex: string;
  meta: JsonObject;
  /** The state file's parsed content; undefined when there is none. */
  state: JsonObject | undefined;
  status: ConversationExecutionStatus;
  /** Microseconds; -Infinity when `meta.json` has no readable time, so such entries sort first. */
  createdAt: number;
  updatedAt: number;
  parentHex: string | undefined;
}

/** The parsed JSON object of a file's text; undefined when it is not JSON, not an object, or nested deeper than MAX_DOCUMENT_DEPTH. */
export function parseJsonObject(text: string): JsonObject | undefined {
  if (jsonDepth(text) > MAX_DOCUMENT_DEPTH) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The entry a conversation's two files make, parsed (undefined: absent or not a JSON
 * object); `statePresent` says whether there is a state file at all. As the reference's
 * catalog: without a `meta.json` object, or with a state file that is there but does not
 * parse, a conversation is no entry.
 */
export function entryOfFiles(
  hex: string,
  meta: JsonObject | undefined,
  state: JsonObject | undefined,
  statePresent: boolean,
): CatalogEntry | undefined {
  if (!meta || (statePresent && !state)) return undefined;
  return catalogEntry(hex, meta, state);
}

/** The entry of a conversation whose `meta.json` parsed, with its state when there is one. */
export function catalogEntry(hex: string, meta: JsonObject, state: JsonObject | undefined): CatalogEntry {
  const parent = typeof meta['parent_conversation_id'] === 'string' ? parseUuid(meta['parent_conversation_id']) : undefined;
  return {
    hex,
    meta,
    state,
    status: executionStatusOf(state),
    createdAt: storedTimestampMicros(meta['created_at']) ?? Number.NEGATIVE_INFINITY,
    updatedAt: storedTimestampMicros(meta['updated_at']) ?? Number.NEGATIVE_INFINITY,
    parentHex: parent?.ok ? parent.hex : undefined,
  };
}

/** Whether the order reads the creation time (else the update time) and runs newest first. */
export function sortKeyOf(sortOrder: ConversationSortOrder): { byCreation: boolean; descending: boolean } {
  return { byCreation: sortOrder === 'CREATED_AT' || sortOrder === 'CREATED_AT_DESC', descending: sortOrder.endsWith('_DESC') };
}

export function compareEntries(sortOrder: ConversationSortOrder): (a: CatalogEntry, b: CatalogEntry) => number {
  const { byCreation, descending } = sortKeyOf(sortOrder);
  return (a, b) => {
    const difference = byCreation ? a.createdAt - b.createdAt : a.updatedAt - b.updatedAt;
    // Ties (and equal missing times) keep one order in both directions: the id's.
    return (descending ? -difference : difference) || (a.hex < b.hex ? -1 : a.hex > b.hex ? 1 : 0);
  };
}

/**
 * Cuts a page from entries in catalog order, starting at the page's first entry: entries
 * without a saved state are passed over (the reference cannot build their info), and the
 * next page starts at the first entry past the limit, whatever it is.
 */
export async function cutPage(
  ordered: AsyncIterable<CatalogEntry> | Iterable<CatalogEntry>,
  limit: number,
): Promise<{ entries: CatalogEntry[]; nextPageId: string | null }> {
  const entries: CatalogEntry[] = [];
  for await (const entry of ordered) {
    if (entries.length >= limit) return { entries, nextPageId: entry.hex };
    if (entry.state) entries.push(entry);
  }
  return { entries, nextPageId: null };
}

/** The entry's `ConversationInfo`; undefined when it has no saved state. */
export function infoOf(entry: CatalogEntry, includeSkills: boolean, subConversationIds: string[]): ConversationInfo | undefined {
  if (!entry.state) return undefined;
  return composeConversationInfo(entry.state, entry.meta, { includeSkills, subConversationIds });
}
