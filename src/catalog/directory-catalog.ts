import { constants } from 'node:fs';
import { type FileHandle, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ConversationExecutionStatus, ConversationInfo } from '../contract';
import type { Logger } from '../log';
import { hyphenate } from '../search';
import { conversationNames, locateConversation, realRootOf } from '../store/files/conversation-location';
import { descriptorInsideRoot } from '../store/files/contained-path';
import { errorCode } from '../store/error-code';
import { readDocument } from '../store/files/document-file';
import { statIfPresent, versionOf } from '../store/files/file-version';
import {
  type CatalogEntry,
  LEFT_OUT_OF_CATALOG,
  META_FILE,
  STATE_FILE,
  compareEntries,
  cutPage,
  entryOfFiles,
  infoOf,
  parseJsonObject,
} from './catalog-entry';
import type { CatalogPage, CatalogSearch, ConversationCatalog, ConversationFile, OpenedFile } from './conversation-catalog';
import { KnownSecrets, knownSecretsOf } from '../secrets';
import { type JsonObject, servedState } from './conversation-info';

/** Directories the reference leaves out of a trajectory: they hold a runtime's credentials. */
const EXCLUDED_TOP_DIRECTORIES = new Set(['acp']);
/** A file still being written under a temporary name, then renamed into place. */
const TEMPORARY_SUFFIX = '.tmp';

interface CachedEntry {
  version: string;
  entry: CatalogEntry | undefined;
}

export function createDirectoryCatalog(root: string, logger: Logger): ConversationCatalog {
  return new DirectoryCatalog(path.resolve(root), logger);
}

class DirectoryCatalog implements ConversationCatalog {
  private readonly cache = new Map<string, CachedEntry>();
  private resolvedRoot: string | undefined;
  private readonly known = new WeakMap<JsonObject, KnownSecrets>();

  constructor(
    private readonly root: string,
    private readonly logger: Logger,
  ) {}

  async search(query: CatalogSearch): Promise<CatalogPage> {
    const entries = await this.entries();
    const matching = entries.filter((entry) => query.status === undefined || entry.status === query.status);
    matching.sort(compareEntries(query.sortOrder));
    let start = 0;
    if (query.pageId)
      start = Math.max(
        0,
        matching.findIndex((entry) => entry.hex === query.pageId),
      );
    const page = await cutPage(matching.slice(start), query.limit);
    const children = childrenIndex(entries);
    return {
      items: page.entries.flatMap((entry) => infoOf(entry, query.includeSkills, children.get(entry.hex) ?? []) ?? []),
      nextPageId: page.nextPageId,
    };
  }

  async count(status?: ConversationExecutionStatus): Promise<number> {
    const entries = await this.entries();
    return status === undefined ? entries.length : entries.filter((entry) => entry.status === status).length;
  }

  async get(hex: string, includeSkills: boolean): Promise<ConversationInfo | undefined> {
    const entry = await this.entry(hex);
    if (!entry?.state) return undefined;
    // Children are the conversations naming this one as their parent: the whole catalog is read for them, as the reference's is.
    return infoOf(entry, includeSkills, childrenIndex(await this.entries()).get(hex) ?? []);
  }

  async state(hex: string): Promise<JsonObject | undefined> {
    const location = await locateConversation(await this.realRoot(), hex);
    if (!location.found) return undefined;
    const state = await this.readJsonObject(path.join(location.directory, STATE_FILE));
    return state && servedState(state);
  }

  async knownSecrets(hex: string): Promise<KnownSecrets> {
    const entry = await this.entry(hex);
    if (entry) return entry.state ? this.knownOf(entry.state) : KnownSecrets.NONE;
    // A conversation out of the catalog (no meta.json) may still have a saved state and events to serve.
    const location = await locateConversation(await this.realRoot(), hex);
    if (!location.found) return KnownSecrets.NONE;
    return knownSecretsOf(await this.readJsonObject(path.join(location.directory, STATE_FILE)));
  }

  /** Read once per version of the state: every page of the conversation asks. */
  private knownOf(state: JsonObject): KnownSecrets {
    let known = this.known.get(state);
    if (!known) {
      known = knownSecretsOf(state);
      this.known.set(state, known);
    }
    return known;
  }

  async files(hex: string): Promise<ConversationFile[] | undefined> {
    const realRoot = await this.realRoot();
    const location = await locateConversation(realRoot, hex);
    if (!location.found) return undefined;
    const files: ConversationFile[] = [];
    await collectFiles(realRoot, location.directory, '', files);
    return files.sort((a, b) => comparePaths(a.relativePath, b.relativePath));
  }

  /**
   * A document as an untrusted agent server may have left it: read only when it is a regular
   * file inside the root (a FIFO under its name would hold a thread forever); undefined when
   * it is not, or does not parse.
   */
  private async readJsonObject(file: string): Promise<JsonObject | undefined> {
    const read = await readDocument(await this.realRoot(), file);
    if (read.kind !== 'text') return undefined;
    try {
      return parseJsonObject(read.text);
    } catch {
      return undefined;
    }
  }

  private async realRoot(): Promise<string> {
    this.resolvedRoot ??= await realRootOf(this.root);
    return this.resolvedRoot;
  }

  /** Every catalog entry: conversation directories whose `meta.json` and state file (when present) parse. */
  private async entries(): Promise<CatalogEntry[]> {
    // In id order, whatever order the file system lists them in: a conversation's sub-conversations are listed in it.
    const names = (await conversationNames(await this.realRoot())).sort();
    const entries: CatalogEntry[] = [];
    for (const hex of names) {
      const entry = await this.entry(hex);
      if (entry) entries.push(entry);
    }
    const present = new Set(names);
    for (const hex of this.cache.keys()) if (!present.has(hex)) this.cache.delete(hex);
    return entries;
  }

  private async entry(hex: string): Promise<CatalogEntry | undefined> {
    const location = await locateConversation(await this.realRoot(), hex);
    if (!location.found) return undefined;
    const metaFile = path.join(location.directory, META_FILE);
    const stateFile = path.join(location.directory, STATE_FILE);
    const [metaStats, stateStats] = await Promise.all([statIfPresent(metaFile), statIfPresent(stateFile)]);
    if (!metaStats) return undefined;
    const version = `${location.identity}|${versionOf(metaStats)}|${versionOf(stateStats)}`;
    const cached = this.cache.get(hex);
    if (cached?.version === version) return cached.entry;
    const entry = await this.readEntry(hex, metaFile, stateStats ? stateFile : undefined);
    this.cache.set(hex, { version, entry });
    return entry;
  }

  private async readEntry(hex: string, metaFile: string, stateFile: string | undefined): Promise<CatalogEntry | undefined> {
    const meta = await this.readJsonObject(metaFile);
    const state = stateFile === undefined ? undefined : await this.readJsonObject(stateFile);
    const entry = entryOfFiles(hex, meta, state, stateFile !== undefined);
    if (!entry) this.logger.warn(LEFT_OUT_OF_CATALOG, { conversation: hex });
    return entry;
  }
}

function childrenIndex(entries: readonly CatalogEntry[]): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const entry of entries) {
    if (entry.parentHex === undefined) continue;
    const list = children.get(entry.parentHex) ?? [];
    list.push(hyphenate(entry.hex));
    children.set(entry.parentHex, list);
  }
  return children;
}

async function collectFiles(realRoot: string, directory: string, prefix: string, files: ConversationFile[]): Promise<void> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(path.join(directory, prefix), { withFileTypes: true });
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return;
    throw new Error(`Cannot list ${path.join(directory, prefix)} (${errorCode(error) ?? String(error)})`, { cause: error });
  }
  for (const dirent of entries) {
    const relativePath = prefix === '' ? dirent.name : `${prefix}/${dirent.name}`;
    if (prefix === '' && EXCLUDED_TOP_DIRECTORIES.has(dirent.name)) continue;
    if (dirent.name.endsWith(TEMPORARY_SUFFIX)) continue;
    const absolute = path.join(directory, relativePath);
    // Links are not followed: a link could lead out of the conversation's directory.
    if (dirent.isDirectory()) {
      const stats = await statIfPresent(absolute);
      if (!stats) continue;
      files.push({ relativePath: `${relativePath}/`, modifiedAt: stats.mtime, size: 0, read: async () => Buffer.alloc(0) });
      await collectFiles(realRoot, directory, relativePath, files);
    } else if (dirent.isFile()) {
      const stats = await statIfPresent(absolute);
      if (!stats) continue;
      files.push({
        relativePath,
        modifiedAt: stats.mtime,
        size: stats.size,
        read: () => readIfPresent(realRoot, absolute),
        open: () => openIfPresent(realRoot, absolute),
      });
    }
  }
}

/** Component by component, as the reference sorts its paths: `events/...` before `events.json`. */
function comparePaths(a: string, b: string): number {
  const as = a.split('/').filter((part) => part !== '');
  const bs = b.split('/').filter((part) => part !== '');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    if (as[i] !== bs[i]) return as[i]! < bs[i]! ? -1 : 1;
  }
  return as.length - bs.length;
}

/**
 * The file's bytes, when it is still the regular file it was listed as, inside the root
 * (openContained); undefined when it is not.
 */
async function readIfPresent(realRoot: string, file: string): Promise<Buffer | undefined> {
  const handle = await openContained(realRoot, file);
  try {
    return await handle?.readFile();
  } catch (error) {
    throw cannotRead(file, error);
  } finally {
    await handle?.close();
  }
}

/** The file opened once and read in pieces as often as asked, under the same conditions as readIfPresent. */
async function openIfPresent(realRoot: string, file: string): Promise<OpenedFile | undefined> {
  const handle = await openContained(realRoot, file);
  if (!handle) return undefined;
  return {
    async *pieces({ reused = false } = {}) {
      const shared = reused ? Buffer.allocUnsafe(FILE_PIECE_BYTES) : undefined;
      for (let position = 0; ; ) {
        // A buffer of its own unless asked otherwise: a piece is kept by whoever took it until they are done with it.
        const piece = shared ?? Buffer.allocUnsafe(FILE_PIECE_BYTES);
        let bytesRead: number;
        try {
          ({ bytesRead } = await handle.read(piece, 0, piece.length, position));
        } catch (error) {
          throw cannotRead(file, error);
        }
        if (bytesRead === 0) return;
        position += bytesRead;
        yield piece.subarray(0, bytesRead);
      }
    },
    close: () => handle.close(),
  };
}

/** Bytes of a file read at a time in pieces. */
const FILE_PIECE_BYTES = 1024 * 1024;

/**
 * The file opened, when it is still the regular file it was listed as, inside the root:
 * opened without following a link and without blocking, so a file replaced since the
 * listing by a link out of the root or by a named pipe is left out rather than followed or
 * waited on; and where the system names what a descriptor opened, a file reached through a
 * directory swapped for a link out of the root since the listing is left out too.
 */
async function openContained(realRoot: string, file: string): Promise<FileHandle | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!(await handle.stat()).isFile() || !descriptorInsideRoot(realRoot, handle.fd)) {
      await handle.close();
      return undefined;
    }
    return handle;
  } catch (error) {
    await handle?.close();
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENXIO') return undefined;
    throw cannotRead(file, error);
  }
}

function cannotRead(file: string, error: unknown): Error {
  return new Error(`Cannot read ${file} (${errorCode(error) ?? String(error)})`, { cause: error });
}
