/**
 * The viewer's search across every conversation, links to one event and the downloads, in
 * Debian's chromium against the real server: a search from the list finds the events of
 * every conversation, a hit opens its conversation scrolled to the event and highlighted,
 * every event has a link and a "Copy link" whose address opens the same view, and a
 * conversation downloads as JSON lines and as Markdown.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { Event } from '../../src/contract';
import { action, conversationId, eventId, message, observation } from '../support/events';
import { startViewerHarness, type ViewerHarness } from './viewer-harness';

const LONG_ID = conversationId(1);
const SHORT_ID = conversationId(2);
const CODE_ID = conversationId(3);
const NEEDLE = 'quarterly ledger';
/** Deep in the long conversation, so reaching it takes several pages and a scroll. */
const DEEP = eventId(1249);

function longConversation(): Event[] {
  return Array.from({ length: 300 }, (_, i) => {
    const stamp = {
      id: eventId(1000 + i),
      timestamp: `2026-03-01T10:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`,
    };
    if (i % 3 === 1) return action(stamp, `Step ${i}: look at the files.`);
    if (i % 3 === 2) return observation(stamp, `output of step ${i}`);
    const text = i === 249 ? `Found it: the ${NEEDLE.toUpperCase()} totals are off by one.` : `Message ${i} about the build.`;
    return message({ ...stamp, source: i % 2 ? 'agent' : 'user' }, { text: [text] });
  });
}

let harness: ViewerHarness;
beforeAll(async () => {
  harness = await startViewerHarness({
    withSampleData: false,
    conversations: [
      { id: LONG_ID, events: longConversation() },
      {
        id: CODE_ID,
        events: [
          message(
            { id: eventId(3), timestamp: '2026-03-02T09:02:00', source: 'agent' },
            { text: ['Ran `npm run audit` on the ledger.\n```sh\ncat totals.csv\n```'] },
          ),
        ],
      },
      {
        id: SHORT_ID,
        events: [
          message({ id: eventId(1), timestamp: '2026-03-02T09:00:00', source: 'user' }, { text: [`Please reconcile the ${NEEDLE}.`] }),
          message({ id: eventId(2), timestamp: '2026-03-02T09:01:00', source: 'agent' }, { text: ['Done <b>not bold</b>.'] }),
        ],
      },
    ],
  });
});
afterAll(async () => {
  await harness?.stop();
});
afterEach(() => harness.closePagesExpectingClean());

async function hitIds(page: Page): Promise<string[][]> {
  return page
    .locator('.search-hits li')
    .evaluateAll((items) => items.map((item) => [item.getAttribute('data-conversation-id') ?? '', item.getAttribute('data-event-id') ?? '']));
}

/** Whether the card is highlighted, focused and inside the window. */
async function revealed(page: Page, id: string): Promise<{ highlighted: boolean; focused: boolean; inView: boolean }> {
  const card = page.locator(`article.event[data-event-id="${id}"]`);
  await card.waitFor();
  return card.evaluate((element) => {
    const box = element.getBoundingClientRect();
    return {
      highlighted: element.classList.contains('highlighted'),
      focused: document.activeElement === element,
      inView: box.top >= 0 && box.top < window.innerHeight,
    };
  });
}

it('searches every conversation from the list, newest first, each hit naming its conversation with the match marked', async () => {
  const { page } = await harness.open('/');
  await page.getByRole('searchbox', { name: 'Search every conversation' }).fill(NEEDLE);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.locator('.search-hits li').first().waitFor();
  expect(new URL(page.url()).searchParams.get('search')).toBe(NEEDLE);
  const expected = await harness.client.searchStoredEvents({ text: NEEDLE, sort_order: 'TIMESTAMP_DESC', limit: 20 });
  if (!expected.ok) throw expected.error;
  expect(await hitIds(page)).toEqual(expected.page.items.map((hit) => [hit.conversation_id, hit.event.id]));
  expect(await hitIds(page)).toEqual([
    [SHORT_ID, eventId(1)],
    [LONG_ID, DEEP],
  ]);
  await expect(page.locator('.search-hits mark').allTextContents()).resolves.toEqual([NEEDLE, NEEDLE.toUpperCase()]);
  await expect(page.locator('.search-status').textContent()).resolves.toContain('2 events contain');
});

it('a hit renders its text the way the timeline does: code as code, no backticks or fences', async () => {
  const { page } = await harness.open(`/?search=${encodeURIComponent('audit')}`);
  const hit = page.locator(`.search-hits li[data-event-id="${eventId(3)}"]`);
  await hit.waitFor();
  const snippet = hit.locator('.hit-snippet');
  await expect(snippet.textContent()).resolves.toBe('Ran npm run audit on the ledger. cat totals.csv');
  await expect(snippet.locator('code').allTextContents()).resolves.toEqual(['npm run ', 'audit', 'cat totals.csv']);
  await expect(snippet.locator('mark').allTextContents()).resolves.toEqual(['audit']);
  await expect(snippet.locator('mark code').count()).resolves.toBe(1);
});

it('a search that matches nothing says so; the search is a link', async () => {
  const { page } = await harness.open(`/?search=${encodeURIComponent('no such words')}`);
  await expect(page.locator('.search-status').filter({ hasText: 'No event' }).textContent()).resolves.toContain(
    'No event in any conversation contains',
  );
  await expect(page.getByRole('searchbox', { name: 'Search every conversation' }).inputValue()).resolves.toBe('no such words');
});

it('a hit opens its conversation scrolled to the event, highlighted, and the address names the event', async () => {
  const { page } = await harness.open(`/?search=${encodeURIComponent(NEEDLE)}`);
  await page.locator(`.search-hits li[data-event-id="${DEEP}"] a`).click();
  await expect(revealed(page, DEEP)).resolves.toEqual({ highlighted: true, focused: true, inView: true });
  const address = new URL(page.url());
  expect([address.searchParams.get('conversation'), address.searchParams.get('event')]).toEqual([LONG_ID, DEEP]);
  // Only the linked event is highlighted.
  await expect(page.locator('article.event.highlighted').count()).resolves.toBe(1);
});

it('every event has a link and a "Copy link" whose address opens that event', async () => {
  const { page } = await harness.open(`/?conversation=${SHORT_ID}`);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.locator('article.event').first().waitFor();
  await expect(page.locator('article.event .copy-link').count()).resolves.toBe(2);
  const second = page.locator(`article.event[data-event-id="${eventId(2)}"]`);
  await second.locator('.copy-link').click();
  // The button says so once the clipboard has taken the address.
  await second.locator('.copy-link').filter({ hasText: 'Copied' }).waitFor();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(`${harness.url}/?conversation=${SHORT_ID}&event=${eventId(2)}`);
  await expect(second.locator('.event-permalink').getAttribute('href')).resolves.toBe(`/?conversation=${SHORT_ID}&event=${eventId(2)}`);

  const { page: opened } = await harness.open(new URL(copied).pathname + new URL(copied).search);
  await expect(revealed(opened, eventId(2))).resolves.toEqual({ highlighted: true, focused: true, inView: true });
});

it('a link to an event the conversation does not have says so', async () => {
  const { page } = await harness.open(`/?conversation=${SHORT_ID}&event=not-an-event`);
  await expect(page.locator('.notice.error').textContent()).resolves.toContain('The linked event not-an-event is not in this view');
  await harness.closePagesExpectingClean();
});

it.each([
  ['Download JSONL', 'jsonl', 'jsonl', `"id":"${eventId(1)}"`],
  ['Download Markdown', 'markdown', 'md', '## Task'],
  ['Download OTLP trace', 'otlp', 'otlp.json', '"resourceSpans"'],
  ['Download ATIF trajectory', 'atif', 'atif.json', '"schema_version":"ATIF-'],
] as const)('%s saves the export with its file name', async (label, format, extension, content) => {
  const { page } = await harness.open(`/?conversation=${SHORT_ID}`);
  await page.locator('article.event').first().waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: label }).click()]);
  expect(download.suggestedFilename()).toBe(`conversation-${SHORT_ID}.${extension}`);
  const saved = readFileSync((await download.path())!, 'utf8');
  const exported = await harness.client.exportConversation(SHORT_ID, format);
  if (!exported.ok) throw exported.error;
  expect(saved).toBe(await exported.response.text());
  expect(saved).toContain(content);
});

describe('with session keys', () => {
  const KEY = 'stored-search-session-key-7d2e';
  let keyed: ViewerHarness;
  beforeAll(async () => {
    keyed = await startViewerHarness({ sessionApiKeys: [KEY], withSampleData: false, conversations: [{ id: SHORT_ID, events: [] }] });
  });
  afterAll(async () => {
    await keyed?.stop();
  });
  afterEach(() => keyed.closePagesExpectingClean());

  it('the search and the downloads send the key the reader gave', async () => {
    const { page } = await keyed.open(`/?search=${encodeURIComponent('anything')}`, { expectedFailures: [401] });
    await page.getByLabel('Session key').fill(KEY);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.locator('.search-status').filter({ hasText: 'No event' }).textContent()).resolves.toContain('No event in any conversation');

    await page.goto(`${keyed.url}/?conversation=${SHORT_ID}`);
    await page.locator('.timeline-footer').filter({ hasText: 'No events' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download Markdown' }).click()]);
    expect(download.suggestedFilename()).toBe(`conversation-${SHORT_ID}.md`);
    expect(readFileSync((await download.path())!, 'utf8')).toContain(`Conversation \`${SHORT_ID}\``);
  });
});
