import { type KnownSecrets, maskedJsonItems } from '../secrets';
import type { StoredPage } from '../store/event-store';
import { adjacentPiecesJoined } from './event-page';

/**
 * Pages already judged by the secret policy, with the known secrets they were judged
 * against. A store that keeps a page hands out the same page again (a kept first page,
 * src/store/sqlite/kept-first-pages.ts): its bytes have not changed, so while the
 * conversation's known secrets are the same its pieces are not scanned again. An entry goes
 * with its page.
 */
const judged = new WeakMap<StoredPage, { known: KnownSecrets; itemsJson: Buffer[] }>();

/** The page's pieces with the secret policy applied to each event in them; events served as stored that lie one after another in memory as one piece. */
export function maskedPageItems(page: StoredPage, known: KnownSecrets): Buffer[] {
  const earlier = judged.get(page);
  if (earlier?.known.sameAs(known)) return earlier.itemsJson;
  const itemsJson = adjacentPiecesJoined(page.itemsJson.map((piece) => maskedJsonItems(piece, known)));
  judged.set(page, { known, itemsJson });
  return itemsJson;
}
