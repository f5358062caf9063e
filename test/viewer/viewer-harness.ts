/**
 * The events viewer as a reader meets it: the bundle built from src/viewer, the real
 * server on 127.0.0.1 port 0 over a temporary copy of the sample conversations, and
 * Debian's chromium driven by playwright-core. Every page records its console errors,
 * uncaught exceptions and any request to a host other than the server, so each test can
 * assert there were none.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildViewerBundle } from '../../scripts/viewer-bundle';
import { createAgentServerClient, type AgentServerClient } from '../../src/client';
import type { Event } from '../../src/contract';
import { writeConversation } from '../../src/fixture/layout';
import { createDirectoryCatalog } from '../../src/catalog';
import { createMemoryLogger } from '../../src/log';
import { createApp } from '../../src/server/app';
import { listen } from '../../src/server/listen';
import { openDirectoryStore } from '../../src/store/sqlite/indexed-directory';

export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const SAMPLE_DATA = path.resolve(__dirname, '../../sample-data/conversations');

/** The sample conversation with 320 events of all 14 kinds. */
export const SAMPLE_ID = 'a3c1e0f2-b4d6-4f0e-9c7a-5b3d1e2f4a6b';

export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught exceptions, as text. */
  errors: string[];
  /** Every request to anything but the server under test. */
  foreignRequests: string[];
}

export interface ViewerHarness {
  url: string;
  /** The conversations directory the server reads (a copy of the sample data plus the extra conversations). */
  root: string;
  client: AgentServerClient;
  /**
   * Opens a new tab; `expectedFailures` are HTTP statuses whose "failed to load" console lines
   * the test provokes on purpose; `beforeLoad` runs on the tab before it loads (to set routes).
   */
  open(pathAndQuery?: string, options?: { expectedFailures?: number[]; beforeLoad?: (page: Page) => Promise<void> }): Promise<WatchedPage>;
  /**
   * Closes every tab opened since the last call (an open tab keeps following its conversation,
   * which costs the tabs of later tests), then asserts that none logged an error or reached for another host.
   */
  closePagesExpectingClean(): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  sessionApiKeys?: string[];
  conversations?: { id: string; events: readonly Event[] }[];
  /** Copy the sample conversations into the store (default true). */
  withSampleData?: boolean;
  /** Serve the conversations catalog too (its state and metadata: the usage figures, the socket's saved state). */
  withCatalog?: boolean;
}

export async function startViewerHarness(options: HarnessOptions = {}): Promise<ViewerHarness> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'viewer-test-'));
  const root = path.join(scratch, 'conversations');
  if (options.withSampleData ?? true) cpSync(SAMPLE_DATA, root, { recursive: true });
  for (const conversation of options.conversations ?? []) writeConversation(root, conversation.id, conversation.events);
  const bundle = await buildViewerBundle(path.join(scratch, 'viewer'));
  const logger = createMemoryLogger();
  const store = openDirectoryStore(root, { logger });
  const catalog = options.withCatalog ? createDirectoryCatalog(root, logger) : undefined;
  const app = createApp({
    store,
    logger,
    validateResponses: true,
    sessionApiKeys: options.sessionApiKeys ?? [],
    viewerDirectory: bundle.directory,
    ...(catalog ? { catalog } : {}),
  });
  const running = await listen(app, '127.0.0.1', 0);
  let browser: Browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
  } catch (error) {
    await running.stop();
    await store.close();
    throw new Error(`Cannot start ${CHROMIUM_PATH} (install it with \`apt-get install -y chromium\`, or set CHROMIUM_PATH): ${String(error)}`);
  }
  const pages: WatchedPage[] = [];
  const origin = new URL(running.url).origin;

  return {
    url: running.url,
    root,
    client: createAgentServerClient({ baseUrl: running.url, sessionApiKey: options.sessionApiKeys?.[0] }),
    async open(pathAndQuery = '/', { expectedFailures = [], beforeLoad } = {}) {
      const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
      // Waits end on what the page shows, not on a clock (Playwright's default is 30 s): a busy
      // machine makes a test slower, never failed; jest.config.js's hang guard still applies.
      context.setDefaultTimeout(0);
      const page = await context.newPage();
      const watched: WatchedPage = { page, errors: [], foreignRequests: [] };
      page.on('console', (message) => {
        if (message.type() !== 'error') return;
        const failedStatus = /^Failed to load resource: the server responded with a status of (\d+)/.exec(message.text())?.[1];
        if (failedStatus !== undefined && expectedFailures.includes(Number(failedStatus))) return;
        watched.errors.push(message.text());
      });
      page.on('pageerror', (error) => watched.errors.push(String(error)));
      page.on('request', (request) => {
        if (new URL(request.url()).origin !== origin) watched.foreignRequests.push(request.url());
      });
      pages.push(watched);
      await beforeLoad?.(page);
      await page.goto(running.url + pathAndQuery);
      return watched;
    },
    async closePagesExpectingClean() {
      const checked = pages.splice(0);
      await Promise.all(checked.map(({ page }) => page.context().close()));
      expect(checked.flatMap((page) => page.errors)).toEqual([]);
      expect(checked.flatMap((page) => page.foreignRequests)).toEqual([]);
    },
    async stop() {
      await browser.close();
      await running.stop();
      await store.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** The `data-event-id` of every event on the page, in document order. */
export function shownEventIds(page: Page): Promise<string[]> {
  return page.locator('article.event').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-event-id') ?? ''));
}

/** Scrolls until the timeline says it has shown the last event of the view (by default with no time limit: jest's hang guard applies). */
export async function scrollToEnd(page: Page, timeoutMs = Number.POSITIVE_INFINITY): Promise<void> {
  const footer = page.locator('.timeline-footer');
  const deadline = Date.now() + timeoutMs;
  while (!/End of the conversation|Oldest event reached|No events match/.test((await footer.textContent()) ?? '')) {
    if (Date.now() > deadline) throw new Error(`the timeline did not reach its end within ${timeoutMs} ms`);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForTimeout(30);
  }
}

/** Every id the API returns for the query, in its order: what the page must show. */
export async function apiEventIds(
  client: AgentServerClient,
  conversation: string,
  filters: Parameters<AgentServerClient['listEvents']>[1] = {},
): Promise<string[]> {
  const events = await client.listEvents(conversation, filters);
  return events.map((event) => event.id ?? '');
}
