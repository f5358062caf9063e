/**
 * The events viewer in a real browser (Debian's chromium through playwright-core) against
 * the real server over loopback: the list, a conversation, every filter from the form and
 * from a link, paging to the end, live updates, and what must never reach the page.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { eventually } from '../support/eventually';
import { action, eventId, message, observation } from '../support/events';
import { apiEventIds, SAMPLE_ID, scrollToEnd, shownEventIds, startViewerHarness, type ViewerHarness } from './viewer-harness';

const SAMPLE_HEX = SAMPLE_ID.replaceAll('-', '');
const SMALL_SAMPLE_ID = '5d0f8e2a-7c3b-41a9-b6e4-d2c0f8a7b5e3';
const EMPTY_SAMPLE_ID = 'c0ffee00-d15c-4e5a-8b7c-6d5e4f3a2b1c';
/** The sample recorded as today's reference writes it: the same task as SAMPLE_ID, later. */
const TODAYS_SAMPLE_ID = '7d0da7e0-c4a2-4b1e-9f3c-5a6b7c8d9e0f';
/** The conversation the reference recorded itself (npm run record-reference), the newest of all. */
const RECORDED_SAMPLE_ID = '1058b2ad-0e0c-4f2e-8a5b-3c7d9e1f2a3b';
const HOSTILE_ID = 'c0000000-0000-4000-8000-000000000001';
const LIVE_ID = 'c0000000-0000-4000-8000-000000000002';
const LIVE = [eventId(201), eventId(202), eventId(203)] as const;
const SOCKET_ID = 'c0000000-0000-4000-8000-000000000003';
const PUSHED = [eventId(301), eventId(302), eventId(303)] as const;
const HOSTILE_TEXT = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>bold?</b>';

let harness: ViewerHarness;

beforeAll(async () => {
  harness = await startViewerHarness({
    conversations: [
      {
        id: HOSTILE_ID,
        events: [
          message(
            { id: eventId(101), timestamp: '2026-01-01T10:00:00', source: 'user' },
            { text: [`${HOSTILE_TEXT}\n\`\`\`html\n<iframe src="https://example.com"></iframe>\n\`\`\``] },
          ),
          action({ id: eventId(102), timestamp: '2026-01-01T10:00:01' }, HOSTILE_TEXT),
          observation({ id: eventId(103), timestamp: '2026-01-01T10:00:02' }, HOSTILE_TEXT),
        ],
      },
      {
        id: LIVE_ID,
        events: [message({ id: LIVE[0], timestamp: '2026-01-02T10:00:00', source: 'user' }, { text: ['Start the run.'] })],
      },
      {
        id: SOCKET_ID,
        events: [message({ id: PUSHED[0], timestamp: '2026-01-03T10:00:00', source: 'user' }, { text: ['Follow me.'] })],
      },
    ],
  });
});
afterAll(async () => {
  await harness?.stop();
});
afterEach(() => harness.closePagesExpectingClean());

async function openSample(query = ''): Promise<Page> {
  const { page } = await harness.open(`/?conversation=${SAMPLE_ID}${query}`);
  await page.locator('article.event').first().waitFor();
  return page;
}

describe('the list of conversations', () => {
  it('shows every stored conversation, newest activity first, with title, id, event count and last event time', async () => {
    const { page } = await harness.open('/');
    await page.locator('.conversation-list li').first().waitFor();
    const rows = page.locator('.conversation-list li');
    const ids = await rows.evaluateAll((items) => items.map((item) => item.getAttribute('data-conversation-id')));
    // The two written for this test have 2026-01 timestamps, older than the samples; the empty one is last.
    expect(ids).toEqual([RECORDED_SAMPLE_ID, TODAYS_SAMPLE_ID, SMALL_SAMPLE_ID, SAMPLE_ID, SOCKET_ID, LIVE_ID, HOSTILE_ID, EMPTY_SAMPLE_ID]);
    const sampleRow = rows.nth(ids.indexOf(SAMPLE_ID));
    await expect(sampleRow.textContent()).resolves.toContain('The orders table skips the first row');
    await expect(sampleRow.textContent()).resolves.toContain('320 events');
    await expect(sampleRow.textContent()).resolves.toContain('last event 2026-06-16 06:43:35');
    await expect(sampleRow.textContent()).resolves.toContain(SAMPLE_ID);
  });

  it('narrows the list by title or id as the reader types', async () => {
    const { page } = await harness.open('/');
    await page.locator('.conversation-list li').first().waitFor();
    await page.getByLabel('Filter by id or title').fill('invoice totals');
    await expect(
      page.locator('.conversation-list li').evaluateAll((items) => items.map((item) => item.getAttribute('data-conversation-id'))),
    ).resolves.toEqual([SMALL_SAMPLE_ID]);
    await page.getByLabel('Filter by id or title').fill(SAMPLE_HEX.slice(0, 10));
    await expect(
      page.locator('.conversation-list li').evaluateAll((items) => items.map((item) => item.getAttribute('data-conversation-id'))),
    ).resolves.toEqual([SAMPLE_ID]);
    await expect(page.locator('.list-summary').textContent()).resolves.toContain('1 of 8 conversations');
  });

  it('opens a conversation from the list; the address names it and Back returns to the list', async () => {
    const { page } = await harness.open('/');
    await page.locator(`a[href="/?conversation=${SAMPLE_ID}"]`).click();
    await page.locator('article.event').first().waitFor();
    expect(new URL(page.url()).searchParams.get('conversation')).toBe(SAMPLE_ID);
    // The heading is filled in once the list of stored conversations has answered, which may come after the first events.
    await page.locator('h1', { hasText: 'The orders table skips the first row' }).waitFor();
    await page.goBack();
    await page.locator('.conversation-list li').first().waitFor();
    expect(new URL(page.url()).search).toBe('');
  });
});

describe('a conversation', () => {
  // How fast the first events appear is measured in viewer-performance.test.ts.
  it('shows its first events in the API order, each with data-event-id and data-kind', async () => {
    const page = await openSample();
    const first = await apiEventIds(harness.client, SAMPLE_ID, { limit: 5 }).then((ids) => ids.slice(0, 5));
    expect((await shownEventIds(page)).slice(0, 5)).toEqual(first);
    const kinds = await page.locator('article.event').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-kind')));
    expect(kinds[0]).toBe('SystemPromptEvent');
  });

  it('renders every event of the 320-event sample exactly once, in order, as the reader scrolls to the end', async () => {
    const page = await openSample();
    // Only the first page is loaded before scrolling: the conversation never loads whole up front.
    expect((await shownEventIds(page)).length).toBeLessThan(320);
    // The number of events comes from the count operation, before the pages are loaded.
    await page.locator('.view-status', { hasText: /^320 events · \d+ shown/ }).waitFor();
    await scrollToEnd(page);
    const shown = await shownEventIds(page);
    expect(shown).toHaveLength(320);
    expect(new Set(shown).size).toBe(320);
    expect(shown).toEqual(await apiEventIds(harness.client, SAMPLE_ID));
    const stored = readdirSync(path.join(harness.root, SAMPLE_HEX, 'events')).length;
    expect(shown).toHaveLength(stored);
  });

  it('pairs each action with its result, folds the bulky kinds and marks errors with words, not colour alone', async () => {
    const page = await openSample();
    await scrollToEnd(page);
    // The system prompt, token events and completion logs start folded.
    for (const kind of ['SystemPromptEvent', 'TokenEvent', 'LLMCompletionLogEvent']) {
      const openFolds = await page.locator(`article.event[data-kind="${kind}"] details[open]`).count();
      expect({ kind, openFolds }).toEqual({ kind, openFolds: 0 });
      expect(await page.locator(`article.event[data-kind="${kind}"] details`).count()).toBeGreaterThan(0);
    }
    // An action links to its observation; following the link focuses it.
    const pairedAction = page.locator('article.event[data-kind="ActionEvent"].paired').first();
    await pairedAction.locator('.pair-link button').click();
    const focused = await page.evaluate(() => ({
      kind: document.activeElement?.getAttribute('data-kind'),
      callId: document.activeElement?.querySelector('[data-result-of]')?.getAttribute('data-result-of'),
    }));
    const actionCallId = await pairedAction.locator('[data-pair-for]').getAttribute('data-pair-for');
    expect(focused.callId).toBe(actionCallId);
    expect(['ObservationEvent', 'AgentErrorEvent', 'UserRejectObservation']).toContain(focused.kind);
    // Errors say so in text.
    await expect(page.locator('article.event[data-kind="AgentErrorEvent"] .kind-badge').first().textContent()).resolves.toContain('Agent error');
    await expect(page.locator('article.event[data-kind="ConversationErrorEvent"] .kind-badge').first().textContent()).resolves.toContain(
      'Conversation error',
    );
    await expect(page.locator('article.event[data-kind="UserRejectObservation"]').first().textContent()).resolves.toContain('Reason');
    // A condensation says how many events it forgot and shows the summary.
    const condensation = page.locator('article.event[data-kind="Condensation"]').first();
    await expect(condensation.locator('.event-summary').textContent()).resolves.toMatch(/^\d+ events? forgotten$/);
    await expect(condensation.locator('.labelled-block').textContent()).resolves.toContain('Summary');
  });

  it('never puts encrypted_content or stored markup into the page, even with every fold open', async () => {
    const page = await openSample();
    await scrollToEnd(page);
    await page.locator('details:not([open]) > summary').evaluateAll((summaries) => {
      for (const summary of summaries) (summary as HTMLElement).click();
    });
    const html = await page.content();
    const secrets = readdirSync(path.join(harness.root, SAMPLE_HEX, 'events')).flatMap((name) => {
      const text = readFileSync(path.join(harness.root, SAMPLE_HEX, 'events', name), 'utf8');
      return [...text.matchAll(/"encrypted_content":"([^"]+)"/g)].map((match) => match[1]!);
    });
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(html).not.toContain(secret);
    expect(html).not.toContain('encrypted_content');

    const hostile = (await harness.open(`/?conversation=${HOSTILE_ID}`)).page;
    await hostile.locator('article.event[data-kind="ObservationEvent"]').waitFor();
    expect(await hostile.locator('main img, main script, main iframe, main b').count()).toBe(0);
    expect(await hostile.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await expect(hostile.locator('article.event[data-kind="MessageEvent"] .prose').first().textContent()).resolves.toContain('<img src=x onerror=');
    await expect(hostile.locator('article.event[data-kind="MessageEvent"] pre code').textContent()).resolves.toBe(
      '<iframe src="https://example.com"></iframe>',
    );
  });

  it('moves between events with j and k, with a visible focus ring', async () => {
    const page = await openSample();
    const ids = await shownEventIds(page);
    await page.keyboard.press('j');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-event-id'))).toBe(ids[0]);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-event-id'))).toBe(ids[2]);
    await page.keyboard.press('k');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-event-id'))).toBe(ids[1]);
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-event-id'))).toBe(ids[2]);
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).not.toBe('none');
    expect(await page.locator('h1').count()).toBe(1);
    expect(await page.locator('article.event h3').count()).toBe(ids.length);
  });
});

describe('filters', () => {
  const cases: { name: string; filters: Record<string, string>; fill: (page: Page) => Promise<void> }[] = [
    {
      name: 'kind',
      filters: { kind: 'MessageEvent' },
      fill: (page) =>
        page
          .getByLabel('Kind', { exact: true })
          .selectOption('MessageEvent')
          .then(() => undefined),
    },
    {
      name: 'source',
      filters: { source: 'user' },
      fill: (page) =>
        page
          .getByLabel('Source', { exact: true })
          .selectOption('user')
          .then(() => undefined),
    },
    {
      name: 'body',
      filters: { body: 'pagination' },
      fill: (page) =>
        page
          .getByLabel('Message text', { exact: true })
          .fill('pagination')
          .then(() => page.getByLabel('Message text', { exact: true }).press('Enter')),
    },
    {
      name: 'time range',
      filters: { timestamp__gte: '2026-06-16T05:45:00', timestamp__lt: '2026-06-16T06:00:00' },
      fill: async (page) => {
        await page.getByLabel('From (inclusive)').fill('2026-06-16T05:45:00');
        await page.getByLabel('Until (exclusive)').fill('2026-06-16T06:00:00');
        await page.getByRole('button', { name: 'Apply' }).click();
      },
    },
    {
      name: 'order',
      filters: { sort_order: 'TIMESTAMP_DESC' },
      fill: (page) =>
        page
          .getByLabel('Order', { exact: true })
          .selectOption('TIMESTAMP_DESC')
          .then(() => undefined),
    },
  ];

  for (const { name, filters, fill } of cases) {
    it(`${name}: set in the form, it is carried in the address and the page shows what the API returns`, async () => {
      const page = await openSample();
      await fill(page);
      await page.waitForURL((url) => Object.entries(filters).every(([key, value]) => url.searchParams.get(key) === value));
      await page.locator('article.event, .timeline-footer:has-text("No events match")').first().waitFor();
      await scrollToEnd(page);
      const expected = await apiEventIds(harness.client, SAMPLE_ID, filters);
      expect(expected.length).toBeGreaterThan(0);
      expect(await shownEventIds(page)).toEqual(expected);
      await page.locator('.view-status', { hasText: new RegExp(`^${expected.length} (matching )?events? · ${expected.length} shown`) }).waitFor();
    });

    it(`${name}: opening a link with it shows that view, with the form filled in`, async () => {
      const page = await openSample(`&${new URLSearchParams(filters).toString()}`);
      await scrollToEnd(page);
      expect(await shownEventIds(page)).toEqual(await apiEventIds(harness.client, SAMPLE_ID, filters));
      const form = await page.evaluate(() =>
        Object.fromEntries(
          [...document.querySelectorAll<HTMLInputElement | HTMLSelectElement>('form.filters [name]')].map((field) => [field.name, field.value]),
        ),
      );
      for (const [key, value] of Object.entries(filters)) expect({ key, value: form[key] }).toEqual({ key, value });
    });
  }

  it('combines filters from a link and clears them with one button', async () => {
    const page = await openSample('&kind=ActionEvent&source=agent&sort_order=TIMESTAMP_DESC');
    await scrollToEnd(page);
    expect(await shownEventIds(page)).toEqual(
      await apiEventIds(harness.client, SAMPLE_ID, { kind: 'ActionEvent', source: 'agent', sort_order: 'TIMESTAMP_DESC' }),
    );
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((url) => url.search === `?conversation=${SAMPLE_ID}`);
  });

  it('says what is wrong with a bad filter in a link, naming the parameter, and nothing an empty view would say', async () => {
    const { page } = await harness.open(`/?conversation=${SAMPLE_ID}&timestamp__gte=yesterday`, { expectedFailures: [422] });
    const alert = page.getByRole('alert');
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toMatch(/timestamp__gte: .+/);
    await page.locator('.next-step').waitFor();
    await expect(page.locator('.next-step').textContent()).resolves.toBe('Correct the filter named above, or clear the filters.');
    // The form stays, filled in, so the reader can correct it; no count, timeline or downloads beside the error.
    await expect(page.locator('#filter-from').inputValue()).resolves.toBe('yesterday');
    expect(await page.locator('.view-status, .timeline-section, .downloads').count()).toBe(0);
    expect(await page.locator('main').textContent()).not.toMatch(/matching event|events? · |Could not load|No events match/);
  });

  it('says so when the conversation does not exist, with what to do, and nothing an empty conversation would say', async () => {
    const { page } = await harness.open('/?conversation=00000000-0000-4000-8000-0000000000ff', { expectedFailures: [404] });
    const alert = page.getByRole('alert');
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toContain('Conversation not found: 00000000-0000-4000-8000-0000000000ff');
    await page.locator('.next-step').waitFor();
    await expect(page.locator('.next-step').textContent()).resolves.toBe('Go back to all conversations and open one from the list.');
    expect(await page.locator('.view-status, .timeline-section, .downloads, form.filters').count()).toBe(0);
    expect(await page.locator('main').textContent()).not.toMatch(/0 events|live: new events|Could not load more events|Download/);
    await expect(page.getByRole('link', { name: '← All conversations' }).count()).resolves.toBe(1);
  });

  it('shows From and Until examples that read as examples, not as a set value', async () => {
    const page = await openSample();
    for (const id of ['#filter-from', '#filter-until']) {
      await expect(page.locator(id).inputValue()).resolves.toBe('');
      await expect(page.locator(id).getAttribute('placeholder')).resolves.toMatch(/^e\.g\. /);
    }
  });
});

describe('what the list counts and the conversation shows', () => {
  it('a conversation with stored events the contract does not describe says how many are withheld, why and where they are counted', async () => {
    const { page } = await harness.open('/');
    const row = page.locator(`.conversation-list li[data-conversation-id="${TODAYS_SAMPLE_ID}"]`);
    await row.waitFor();
    const stored = Number(/(\d+) events/.exec((await row.textContent()) ?? '')?.[1]);
    const counted = await harness.client.countEvents(TODAYS_SAMPLE_ID, {});
    if (!counted.ok) throw counted.error;
    // The sample holds events of kinds the contract does not list, so the two numbers differ.
    expect(stored).toBeGreaterThan(counted.count);

    await row.locator('a').click();
    const note = page.locator('.withheld-note:not([hidden])');
    await note.waitFor();
    await expect(note.textContent()).resolves.toContain(`${stored - counted.count} of the ${stored} stored events are not shown`);
    await expect(note.textContent()).resolves.toContain('--serve-stored-events-unchanged');
    await expect(note.textContent()).resolves.toContain('/health');
    await page.locator('.view-status', { hasText: new RegExp(`^${counted.count} events · `) }).waitFor();
  });

  it('a conversation whose stored events are all served has no such note', async () => {
    const page = await openSample();
    await page.locator('.view-status', { hasText: /^320 events · / }).waitFor();
    // The facts come from the list of stored conversations, read beside the events: waited for, not read at once.
    await page.locator('.conversation-facts', { hasText: '320 events stored' }).waitFor();
    expect(await page.locator('.withheld-note:not([hidden])').count()).toBe(0);
  });
});

describe('recorded tool calls', () => {
  it('head each action with what it does, not with its arguments repeated as JSON', async () => {
    const { page } = await harness.open(`/?conversation=${RECORDED_SAMPLE_ID}&kind=ActionEvent`);
    await page.locator('article.event').first().waitFor();
    await scrollToEnd(page);
    const headings = await page.locator('article.event .event-summary').allTextContents();
    expect(headings.length).toBeGreaterThan(0);
    for (const heading of headings) expect(heading).not.toMatch(/[{}]|\\"/);
    expect(headings).toEqual(
      expect.arrayContaining([
        'terminal · $ echo hello from the terminal > greeting.txt && cat greeting.txt',
        'task_tracker · plan: 2 tasks',
        expect.stringMatching(/^file_editor · create \/.+\/notes\.md$/),
        'think · Both files exist; the search index should find the word greeting.',
      ]),
    );
    // The arguments themselves are still there, in the card's body.
    await expect(page.locator('article.event .labelled-block').first().textContent()).resolves.toContain('"command"');
  });
});

/** src/viewer/conversation-view.ts's POLL_MS: the viewer reads a shown view's new events every 500 ms. */
const VIEWER_POLL_MS = 500;
/** "Within 2 s" (docs/viewer.md) at the viewer's pace: the reads of the events it starts in 2 s. */
const READS_IN_2_S = 2000 / VIEWER_POLL_MS;

/**
 * Runs `write`, waits (on the page, not on a clock) until every page shows the event `id`, and
 * resolves with how many reads of the conversation's events each page started after the write
 * and before it showed it. "Within 2 s" is counted in the reads the viewer starts in 2 s: a busy
 * machine delays every read alike, so it makes this slower, never failed, while a viewer that
 * needs more reads than that to show a new event still fails it.
 */
async function readsUntilShown(pages: Page[], id: string, write: () => void): Promise<number[]> {
  const reads = pages.map(() => 0);
  const listeners = pages.map((page, index) => {
    const listener = (request: { url(): string }) => {
      if (/\/api\/conversations\/[^/]+\/events/.test(new URL(request.url()).pathname)) reads[index]! += 1;
    };
    page.on('request', listener);
    return listener;
  });
  write();
  try {
    return await Promise.all(
      pages.map(async (page, index) => {
        await page.locator(`article.event[data-event-id="${id}"]`).waitFor({ timeout: 0 });
        return reads[index]!;
      }),
    );
  } finally {
    for (const [index, page] of pages.entries()) page.off('request', listeners[index]!);
  }
}

/** Each page read the conversation's events at least once, and showed the new event within the reads of 2 s. */
function expectWithin2s(reads: number[]): void {
  for (const count of reads) {
    expect(count).toBeGreaterThanOrEqual(1);
    expect(count).toBeLessThanOrEqual(READS_IN_2_S);
  }
}

describe('live', () => {
  function appendEvent(index: number, id: string, timestamp: string, text: string, conversation = LIVE_ID): void {
    const event = message({ id, timestamp, source: 'agent' }, { text: [text] });
    writeFileSync(
      path.join(harness.root, conversation.replaceAll('-', ''), 'events', `event-${String(index).padStart(5, '0')}-${id}.json`),
      JSON.stringify(event),
    );
  }

  it('follows new events over the events socket, and falls back to polling when the socket fails', async () => {
    const followed = (await harness.open(`/?conversation=${SOCKET_ID}`)).page;
    const pushedFrames: string[] = [];
    const opened = new Promise<void>((resolve) =>
      followed.on('websocket', (socket) => {
        socket.on('framereceived', ({ payload }) => {
          pushedFrames.push(String(payload));
          resolve();
        });
      }),
    );
    await followed.reload();
    await followed.locator('article.event').first().waitFor();
    await opened;
    expectWithin2s(
      await readsUntilShown([followed], PUSHED[1], () => appendEvent(1, PUSHED[1], '2026-01-03T10:00:05', 'Pushed over the socket.', SOCKET_ID)),
    );
    // The page learnt of it from the socket: the frame carrying it reached the page. The browser
    // reports a frame to this process on its own schedule, which may come after the page drew it.
    await eventually(() => expect(pushedFrames.some((frame) => frame.includes(PUSHED[1]))).toBe(true));
    expect(await shownEventIds(followed)).toEqual([PUSHED[0], PUSHED[1]]);

    // A socket that the network refuses: the page reads by polling instead.
    const refused = (await harness.open()).page;
    await refused.routeWebSocket(/\/sockets\//, (socket) => socket.close({ code: 1011, reason: 'refused by the test' }));
    await refused.goto(`${harness.url}/?conversation=${SOCKET_ID}`);
    await refused.locator(`article.event[data-event-id="${PUSHED[1]}"]`).waitFor();
    expectWithin2s(
      await readsUntilShown([refused], PUSHED[2], () => appendEvent(2, PUSHED[2], '2026-01-03T10:00:09', 'Read by polling.', SOCKET_ID)),
    );
    expect(await shownEventIds(refused)).toEqual([...PUSHED]);
  });

  it('shows an event written to the conversation within 2 s, in oldest-first and newest-first views', async () => {
    const oldestFirst = (await harness.open(`/?conversation=${LIVE_ID}`)).page;
    const newestFirst = (await harness.open(`/?conversation=${LIVE_ID}&sort_order=TIMESTAMP_DESC`)).page;
    await oldestFirst.locator('article.event').first().waitFor();
    await newestFirst.locator('article.event').first().waitFor();
    await scrollToEnd(oldestFirst);

    expectWithin2s(
      await readsUntilShown([oldestFirst, newestFirst], LIVE[1], () =>
        appendEvent(1, LIVE[1], '2026-01-02T10:00:05', 'A new event, written while the page is open.'),
      ),
    );
    expect(await shownEventIds(oldestFirst)).toEqual([LIVE[0], LIVE[1]]);
    expect(await shownEventIds(newestFirst)).toEqual([LIVE[1], LIVE[0]]);

    expectWithin2s(await readsUntilShown([oldestFirst, newestFirst], LIVE[2], () => appendEvent(2, LIVE[2], '2026-01-02T10:00:09', 'And another.')));
    expect(await shownEventIds(oldestFirst)).toEqual([...LIVE]);
    expect(await shownEventIds(newestFirst)).toEqual([...LIVE].reverse());
  });
});

describe('session keys', () => {
  const KEY = 'viewer-test-session-key-4f1c9a';
  let keyed: ViewerHarness;
  beforeAll(async () => {
    keyed = await startViewerHarness({ sessionApiKeys: [KEY], withSampleData: true });
  });
  afterAll(async () => {
    await keyed?.stop();
  });
  afterEach(() => keyed.closePagesExpectingClean());

  it('asks for the key, says clearly when it is wrong, keeps it for the tab only and never writes it into the page', async () => {
    const { page } = await keyed.open(`/?conversation=${SAMPLE_ID}`, { expectedFailures: [401] });
    const field = page.getByLabel('Session key');
    await field.waitFor();
    expect(await field.getAttribute('type')).toBe('password');

    await field.fill('not-the-key');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('did not accept that session key');

    await page.getByLabel('Session key').fill(KEY);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('article.event').first().waitFor();
    expect(await page.evaluate(() => ({ session: sessionStorage.length, local: localStorage.length }))).toEqual({ session: 1, local: 0 });
    expect(await page.content()).not.toContain(KEY);

    // A reload in the same tab keeps the key; the 401s of the wrong attempt were expected.
    await page.reload();
    await page.locator('article.event').first().waitFor();
    expect(await page.content()).not.toContain(KEY);
  });

  it('a second request refused for want of the key does not redraw the prompt under what the reader is typing', async () => {
    // The first page's answer is held back until the prompt (drawn on the list's 401) has been typed into.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { page } = await keyed.open(`/?conversation=${SAMPLE_ID}`, {
      expectedFailures: [401],
      beforeLoad: async (tab) => {
        await tab.route('**/events/search?*', async (route) => {
          await held;
          await route.continue();
        });
      },
    });
    const field = page.getByLabel('Session key');
    await field.waitFor();
    await field.fill('typed-while-the-first-page-loads');
    const refused = page.waitForResponse((response) => response.url().includes('/events/search') && response.status() === 401);
    release();
    await refused;
    // A turn of the page's own task queue: what it does with that answer is done by then.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
    await expect(field.inputValue()).resolves.toBe('typed-while-the-first-page-loads');
  });
});
