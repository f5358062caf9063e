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
 * Bounded by bytes: the least recently asked page goes first.
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

export class KeptFirstPages {
  /** In the order they were last asked for, least recent first. */
  private readonly pages = new Map<string, KeptPage>();
  private bytes = 0;

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

  /** Keeps a page read after the conversation's writes were `conversationWrites`, when it is a first page. */
  keep(hex: string, criteria: SearchCriteria, conversationWrites: number, page: StoredPage): void {
    const key = keyOf(hex, criteria);
    if (key === undefined) return;
    const bytes = page.itemsJson.reduce((sum, piece) => sum + piece.length, 0);
    if (bytes > this.maxBytes * LARGEST_SHARE) return;
    const earlier = this.pages.get(key);
    if (earlier) this.drop(key, earlier);
    this.pages.set(key, { conversationWrites, page, bytes });
    this.bytes += bytes;
    for (const [oldestKey, oldest] of this.pages) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldestKey, oldest);
    }
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
