/**
 * The soak's readers: each pages through one conversation after another, from the first
 * page to `next_page_id: null`, with a limit and order of its own, until the deadline.
 * Every request is timed; every failure counted, and an id seen twice in one walk is a
 * failure too (cursors must not repeat or skip back while events are appended).
 */
import type { SoakConversation } from './dataset';
import { fetchPage } from './page';

const LIMITS = [20, 50, 100];
const MAX_ERROR_SAMPLES = 10;

export interface ReaderTotals {
  requests: number;
  walks: number;
  errors: number;
  /** The first few error reasons, for the report. */
  errorSamples: string[];
  latenciesMs: number[];
}

const PROGRESS_EVERY_MS = 10_000;

/** Runs `clients` readers until `deadline` (a performance.now() time), reporting totals every 10 s. */
export async function runReaders(
  baseUrl: string,
  conversations: readonly SoakConversation[],
  clients: number,
  deadline: number,
  progress: (line: string) => void,
): Promise<ReaderTotals> {
  const totals: ReaderTotals = { requests: 0, walks: 0, errors: 0, errorSamples: [], latenciesMs: [] };
  const started = performance.now();
  const ticker = setInterval(() => {
    progress(`${Math.round((performance.now() - started) / 1000)} s: ${totals.requests} requests, ${totals.walks} walks, ${totals.errors} errors`);
  }, PROGRESS_EVERY_MS);
  try {
    await Promise.all(Array.from({ length: clients }, (_, client) => readUntil(baseUrl, conversations, client, deadline, totals)));
  } finally {
    clearInterval(ticker);
  }
  return totals;
}

async function readUntil(
  baseUrl: string,
  conversations: readonly SoakConversation[],
  client: number,
  deadline: number,
  totals: ReaderTotals,
): Promise<void> {
  for (let walk = client; performance.now() < deadline; walk++) {
    const conversation = conversations[walk % conversations.length]!;
    const limit = LIMITS[walk % LIMITS.length]!;
    const sortOrder = walk % 4 === 3 ? 'TIMESTAMP_DESC' : 'TIMESTAMP';
    const seen = new Set<string>();
    let pageId: string | undefined;
    do {
      const result = await fetchPage(baseUrl, { conversationId: conversation.id, limit, sortOrder, pageId });
      totals.requests += 1;
      totals.latenciesMs.push(result.ms);
      if (!result.ok) {
        recordError(totals, `${conversation.id}: ${result.reason}`);
        break;
      }
      const repeated = result.page.items.find((item) => item.id !== undefined && seen.has(item.id));
      if (repeated) {
        recordError(totals, `${conversation.id}: event ${repeated.id} served twice in one ${sortOrder} walk`);
        break;
      }
      for (const item of result.page.items) if (item.id !== undefined) seen.add(item.id);
      pageId = result.page.next_page_id ?? undefined;
    } while (pageId !== undefined && performance.now() < deadline);
    if (pageId === undefined) totals.walks += 1;
  }
}

function recordError(totals: ReaderTotals, reason: string): void {
  totals.errors += 1;
  if (totals.errorSamples.length < MAX_ERROR_SAMPLES) totals.errorSamples.push(reason);
}
