/**
 * The viewer's targets, measured in chromium: the first events of a sample conversation
 * on screen within 1 s of opening it, and no long task over 100 ms (PerformanceObserver
 * `longtask`) while the reader pages through a 10k-event conversation to its end. The
 * figures are printed, and docs/viewer.md records a run; on a shared machine they vary.
 * Not part of `npm test` (it pages 10k events for minutes): `npm run test:viewer-performance`.
 */
import { generateConversation } from '../../src/fixture';
import { conversationId } from '../support/events';
import { SAMPLE_ID, scrollToEnd, shownEventIds, startViewerHarness, type ViewerHarness } from './viewer-harness';

const LARGE_ID = conversationId(10_000);
const LARGE_EVENTS = 10_000;
const LONG_TASK_LIMIT_MS = 100;

let harness: ViewerHarness;
beforeAll(async () => {
  harness = await startViewerHarness({
    conversations: [{ id: LARGE_ID, events: generateConversation({ events: LARGE_EVENTS, seed: 'viewer-performance' }) }],
  });
  // Load the large conversation into the store first: the target is about the page, not the first read from disk.
  expect((await harness.client.countEvents(LARGE_ID)).ok).toBe(true);
}, 120_000);
afterAll(async () => {
  await harness?.stop();
});
afterEach(() => harness.closePagesExpectingClean());

it('shows the first events of a sample conversation within 1 s of opening it', async () => {
  const { page } = await harness.open('/');
  await page.locator('.conversation-list li').first().waitFor();
  const timings: number[] = [];
  // The first opening also starts the tab's renderer and compiles the script; it is reported, and the target judged on the openings after it.
  for (let run = 0; run < 4; run++) {
    const started = Date.now();
    await page.goto(`${harness.url}/?conversation=${SAMPLE_ID}`);
    await page.locator('article.event').first().waitFor();
    timings.push(Date.now() - started);
  }
  process.stdout.write(`viewer: first events on screen after ${timings.join(', ')} ms (target < 1000 after the first)\n`);
  expect(Math.max(...timings.slice(1))).toBeLessThan(1000);
});

it(`pages through ${LARGE_EVENTS} events to the end with no long task over ${LONG_TASK_LIMIT_MS} ms`, async () => {
  const { page } = await harness.open('/');
  await page.evaluate(() => {
    const record = window as unknown as { longTasks: number[] };
    record.longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) record.longTasks.push(entry.duration);
    }).observe({ type: 'longtask', buffered: false });
  });
  // Navigating inside the page keeps the observer: the reader clicks the conversation in the list.
  await page.locator(`.conversation-list a[href*="${LARGE_ID}"]`).click();
  await page.locator('article.event').first().waitFor();
  const started = Date.now();
  await scrollToEnd(page, 600_000);
  const elapsed = Date.now() - started;
  const shown = await shownEventIds(page);
  expect(shown).toHaveLength(LARGE_EVENTS);
  expect(new Set(shown).size).toBe(LARGE_EVENTS);
  const longTasks = await page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks);
  const longest = Math.max(0, ...longTasks);
  process.stdout.write(
    `viewer: ${LARGE_EVENTS} events paged in ${elapsed} ms; long tasks (> 50 ms): ${longTasks.length}, longest ${Math.round(longest)} ms (limit ${LONG_TASK_LIMIT_MS})\n`,
  );
  expect(longest).toBeLessThanOrEqual(LONG_TASK_LIMIT_MS);
}, 600_000);
