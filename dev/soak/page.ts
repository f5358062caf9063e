/**
 * One page request as a soak client makes it: timed from send to the last byte of the body,
 * and judged. Anything but a 200 with an EventPage body is an error with a short reason.
 */
import type { EventPage } from '../../src/contract';

export type PageResult = { ok: true; page: EventPage; ms: number } | { ok: false; reason: string; ms: number };

export interface PageRequest {
  conversationId: string;
  limit: number;
  sortOrder: 'TIMESTAMP' | 'TIMESTAMP_DESC';
  pageId?: string;
}

/** Requests one page and judges it; never throws. */
export async function fetchPage(baseUrl: string, request: PageRequest): Promise<PageResult> {
  const query = new URLSearchParams({ limit: String(request.limit), sort_order: request.sortOrder });
  if (request.pageId !== undefined) query.set('page_id', request.pageId);
  const started = performance.now();
  try {
    const response = await fetch(`${baseUrl}/api/conversations/${request.conversationId}/events/search?${query}`);
    const text = await response.text();
    const ms = performance.now() - started;
    if (response.status !== 200) return { ok: false, reason: `status ${response.status}: ${text.slice(0, 200)}`, ms };
    const page = JSON.parse(text) as EventPage;
    if (!Array.isArray(page.items) || page.items.length > request.limit) return { ok: false, reason: 'not a page of at most `limit` items', ms };
    return { ok: true, page, ms };
  } catch (error) {
    return { ok: false, reason: `request failed: ${(error as Error).message}`, ms: performance.now() - started };
  }
}
