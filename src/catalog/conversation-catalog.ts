/**
 * What the server asks of a conversations catalog: the reference's catalog operations
 * over stored conversations, the saved state the event socket starts with, and the
 * files of a conversation for its trajectory download. Ids are 32 lower-case hex digits.
 */
import type { ConversationExecutionStatus, ConversationInfo, ConversationSortOrder } from '../contract';
import type { KnownSecrets } from '../secrets';
import type { JsonObject } from './conversation-info';

export interface CatalogSearch {
  status?: ConversationExecutionStatus;
  sortOrder: ConversationSortOrder;
  pageId?: string;
  limit: number;
  includeSkills: boolean;
}

export interface CatalogPage {
  items: ConversationInfo[];
  nextPageId: string | null;
}

/** One file of a conversation's directory, for the trajectory archive. */
export interface ConversationFile {
  /** The path inside the conversation's directory, `/`-separated: `meta.json`, `events/event-00000-<id>.json`. */
  relativePath: string;
  modifiedAt: Date;
  /** The file's size in bytes when it was listed (0 for a directory). */
  size: number;
  /** The file's bytes; undefined when it vanished after it was listed (skipped, as the reference skips it). */
  read(): Promise<Buffer | undefined>;
  /**
   * The file opened once, for a reader that reads it more than once in pieces (the archive:
   * once to look for what the secret policy masks, once to send it); undefined when it
   * vanished. Where absent, the file is read whole.
   */
  open?(): Promise<OpenedFile | undefined>;
}

export interface OpenedFile {
  /**
   * The bytes from the start, in pieces read as they are taken. With `reused`, every piece is
   * read into the same buffer, valid only until the next is asked for: for a reader that
   * looks at each piece and keeps none.
   */
  pieces(options?: { reused?: boolean }): AsyncIterable<Buffer>;
  close(): Promise<void>;
}

export interface ConversationCatalog {
  search(query: CatalogSearch): Promise<CatalogPage>;
  /** Catalog entries with this status; without one, every entry, those without a saved state included. */
  count(status?: ConversationExecutionStatus): Promise<number>;
  /** Undefined when the catalog does not hold the conversation or it has no saved state. */
  get(hex: string, includeSkills: boolean): Promise<ConversationInfo | undefined>;
  /** The saved state (`base_state.json`) with its secrets masked; undefined when there is none. */
  state(hex: string): Promise<JsonObject | undefined>;
  /**
   * The secrets the conversation's saved state holds in clear (src/secrets, `knownSecretsOf`),
   * for the server to mask wherever they appear in what it sends of the conversation; none
   * when there is no saved state.
   */
  knownSecrets(hex: string): Promise<KnownSecrets>;
  /**
   * The conversation's files in path order, directories as entries ending in `/`; undefined
   * when there is no such conversation. A PostgreSQL catalog lists what the database holds
   * of the directory: the two documents and the event files (docs/reference-behaviour.md).
   */
  files(hex: string): Promise<ConversationFile[] | undefined>;
}
