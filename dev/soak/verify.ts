/**
 * The proof that appends were served: after the writer stops, a client pages each
 * conversation from the first page to the last and every appended id must be there exactly
 * once. The server picks files up asynchronously, so the walk is repeated until it holds
 * or the grace period ends; what is still missing or doubled is reported by count.
 */
import type { SoakConversation } from './dataset';
import { fetchPage } from './page';

export interface AppendVerdict {
  appended: number;
  servedOnce: number;
  missing: number;
  duplicated: number;
  /** Events in the final walks, initial ones included. */
  walkedEvents: number;
  /** The first failure of a final walk's request, if any. */
  walkError?: string;
}

/** Walks every conversation to its last page until each appended id is there exactly once, or `graceMs` runs out. */
export async function verifyAppended(
  baseUrl: string,
  conversations: readonly SoakConversation[],
  appended: ReadonlyMap<string, readonly string[]>,
  graceMs: number,
): Promise<AppendVerdict> {
  const deadline = performance.now() + graceMs;
  for (;;) {
    const verdict = await verifyOnce(baseUrl, conversations, appended);
    if ((verdict.missing === 0 && verdict.duplicated === 0) || verdict.walkError || performance.now() > deadline) return verdict;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function verifyOnce(
  baseUrl: string,
  conversations: readonly SoakConversation[],
  appended: ReadonlyMap<string, readonly string[]>,
): Promise<AppendVerdict> {
  const verdict: AppendVerdict = { appended: 0, servedOnce: 0, missing: 0, duplicated: 0, walkedEvents: 0 };
  for (const conversation of conversations) {
    const walked = await walkToEnd(baseUrl, conversation.id);
    if (typeof walked === 'string') return { ...verdict, walkError: walked };
    verdict.walkedEvents += walked.length;
    const counts = new Map<string, number>();
    for (const id of walked) counts.set(id, (counts.get(id) ?? 0) + 1);
    for (const id of appended.get(conversation.id) ?? []) {
      verdict.appended += 1;
      const count = counts.get(id) ?? 0;
      if (count === 1) verdict.servedOnce += 1;
      else if (count === 0) verdict.missing += 1;
      else verdict.duplicated += 1;
    }
  }
  return verdict;
}

/** Every id of a conversation in search order, or the reason a page failed. */
async function walkToEnd(baseUrl: string, conversationId: string): Promise<string[] | string> {
  const ids: string[] = [];
  let pageId: string | undefined;
  do {
    const result = await fetchPage(baseUrl, { conversationId, limit: 100, sortOrder: 'TIMESTAMP', pageId });
    if (!result.ok) return `${conversationId}: ${result.reason}`;
    for (const item of result.page.items) if (item.id !== undefined) ids.push(item.id);
    pageId = result.page.next_page_id ?? undefined;
  } while (pageId !== undefined);
  return ids;
}
