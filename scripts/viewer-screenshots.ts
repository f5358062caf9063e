/**
 * `npm run screenshots:viewer`: builds the events viewer, serves the sample data on a
 * loopback port and writes screenshots for the docs: the list of conversations
 * (docs/viewer-list.png), the top of a conversation (docs/viewer-conversation.png) and
 * its tool steps (docs/viewer-steps.png). Needs
 * Debian's chromium (`apt-get install chromium`), or CHROMIUM_PATH.
 */
import path from 'node:path';
import { chromium } from 'playwright-core';
import { createMemoryLogger } from '../src/log';
import { createApp } from '../src/server/app';
import { listen } from '../src/server/listen';
import { openDirectoryStore } from '../src/store/sqlite/indexed-directory';
import { buildViewerBundle } from './viewer-bundle';

const root = path.resolve(__dirname, '..');
const SAMPLE_CONVERSATION = 'a3c1e0f2b4d64f0e9c7a5b3d1e2f4a6b';

async function main(): Promise<void> {
  const bundle = await buildViewerBundle(path.join(root, 'dist', 'viewer'));
  const logger = createMemoryLogger();
  const store = openDirectoryStore(path.join(root, 'sample-data', 'conversations'), { logger });
  const running = await listen(createApp({ store, logger, viewerDirectory: bundle.directory }), '127.0.0.1', 0);
  const browser = await chromium.launch({ executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 });
    await page.goto(`${running.url}/`);
    await page.locator('.conversation-list li').first().waitFor();
    await page.screenshot({ path: path.join(root, 'docs', 'viewer-list.png') });

    await page.setViewportSize({ width: 1200, height: 1400 });
    await page.goto(`${running.url}/?conversation=${SAMPLE_CONVERSATION}`);
    await page.locator('article.event').nth(15).waitFor();
    await page.screenshot({ path: path.join(root, 'docs', 'viewer-conversation.png') });
    // Further on, where the agent works: actions paired with their results, and a failed one.
    await page
      .locator('article.event')
      .nth(9)
      .evaluate((card) => window.scrollTo(0, card.getBoundingClientRect().top + window.scrollY - 16));
    await page.screenshot({ path: path.join(root, 'docs', 'viewer-steps.png') });
    process.stdout.write('wrote docs/viewer-list.png, docs/viewer-conversation.png and docs/viewer-steps.png\n');
  } finally {
    await browser.close();
    await running.stop();
    await store.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`screenshots failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
