/**
 * First pages of searches, kept as they were read, per conversation and query. The viewer
 * and the reference's clients poll the first page of an open conversation, and each answer
 * otherwise reads the same rows from the index again. A kept page is handed out only while
 * the ingester has written nothing to its conversation since before the page was read
 * (`writes`, the ingester's number of its last write there, read before the page is), so
 * an appended, rewritten or removed event shows on the first request after the ingester
 * stored it, as without keeping. Pages after a cursor are not kept: a walk through a
 * conversation asks each once.
 *
 * A page is kept the second time it is read unchanged, as a cache keeps what is asked
 * for more than once (nginx's `proxy_cache_min_uses 2`): a poll asks for its page again
 * within seconds, while a walk through every conversation asks for each first page once,
 * and keeping those pushed out the polled ones and left every evicted page to V8's
 * collector, which frees a page's buffer only at its next full collection.
 *
 * Bounded by bytes: the least recently asked page goes first. A kept page's events are
 * copied into one buffer, a comma between each two, and handed out as views of it: one
 * allocation per page rather than one per event, and a page that is served as stored can
 * be written as one view (src/server/event-page.ts, adjacentPiecesJoined).
 */
import type { SearchCriteria } from '../../search';
import type { StoredPage } from '../event-store';

interface KeptPage {
  conversationWrites: number;
  page: StoredPage;
  bytes: number;
}

/** A page larger than this share of the bound is answered without being kept: it would push out many others. */
const LARGEST_SHARE = 1 / 4;
/** First pages read once and not kept, remembered so the next read keeps them; the least recent forgotten first. */
const READ_ONCE_REMEMBERED = 4096;

export class KeptFirstPages {
  /** In the order they were last asked for, least recent first. */
  private readonly pages = new Map<string, KeptPage>();
  private bytes = 0;
  /** Pages read once and not kept, by key, with their conversation's writes when read. */
  private readonly readOnce = new Map<string, number>();

  constructor(private readonly maxBytes: number) {}

  /** The kept page of this search, when it is a first page and its conversation has not been written since it was read. */
  find(hex: string, criteria: SearchCriteria, conversationWrites: number): StoredPage | undefined {
    const key = keyOf(hex, criteria);
    if (key === undefined) return undefined;
    const kept = this.pages.get(key);
    if (!kept) return undefined;
    this.drop(key, kept);
    if (kept.conversationWrites !== conversationWrites) return undefined;
    this.pages.set(key, kept);
    this.bytes += kept.bytes;
    return kept.page;
  }

  /**
   * Keeps a page read after the conversation's writes were `conversationWrites`, when it is
   * a first page read before under the same writes, and returns it as kept; any other page
   * is returned as it is.
   */
  keep(hex: string, criteria: SearchCriteria, conversationWrites: number, page: StoredPage): StoredPage {
    const key = keyOf(hex, criteria);
    if (key === undefined) return page;
    const bytes = page.itemsJson.reduce((sum, piece) => sum + piece.length + 1, 0);
    if (bytes > this.maxBytes * LARGEST_SHARE) return page;
    if (!this.readBefore(key, conversationWrites)) return page;
    const kept: StoredPage = { itemsJson: viewsOfOneBuffer(page.itemsJson), nextPageId: page.nextPageId };
    const earlier = this.pages.get(key);
    if (earlier) this.drop(key, earlier);
    this.pages.set(key, { conversationWrites, page: kept, bytes });
    this.bytes += bytes;
    for (const [oldestKey, oldest] of this.pages) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldestKey, oldest);
    }
    return kept;
  }

  /** Whether the page was read once before under these writes; if not, remembers that it now was. */
  private readBefore(key: string, conversationWrites: number): boolean {
    const before = this.readOnce.get(key);
    this.readOnce.delete(key);
    if (before === conversationWrites) return true;
    this.readOnce.set(key, conversationWrites);
    if (this.readOnce.size > READ_ONCE_REMEMBERED) this.readOnce.delete(this.readOnce.keys().next().value!);
    return false;
  }

  private drop(key: string, kept: KeptPage): void {
    this.pages.delete(key);
    this.bytes -= kept.bytes;
  }
}

/**
 * The conversation and every criterion of a first page; undefined for a page after a
 * cursor. Every member of the criteria is part of it, so a criterion added later cannot be
 * left out of the key and answer another search's page.
 */
function keyOf(hex: string, criteria: SearchCriteria): string | undefined {
  if (criteria.pageId !== undefined) return undefined;
  const members = Object.entries(criteria).filter(([, value]) => value !== undefined);
  members.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${hex} ${JSON.stringify(members)}`;
}

/** The pieces copied into one buffer, a comma between each two, as views of it. */
function viewsOfOneBuffer(pieces: readonly Buffer[]): Buffer[] {
  if (pieces.length === 0) return [];
  const joined = Buffer.allocUnsafeSlow(pieces.reduce((sum, piece) => sum + piece.length, pieces.length - 1));
  const views: Buffer[] = [];
  let at = 0;
  for (const piece of pieces) {
    if (at > 0) joined[at++] = COMMA;
    piece.copy(joined, at);
    views.push(joined.subarray(at, at + piece.length));
    at += piece.length;
  }
  return views;
}

const COMMA = 0x2c;
