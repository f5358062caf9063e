/**
 * The usage the agent server recorded, where a person looks: each row of the list, the sum
 * over the list, and a conversation's header; a conversation that recorded none says so.
 * The recorded sample (sample-data, recorded from the reference) has token counts and no cost.
 */
import { type ViewerHarness, startViewerHarness } from './viewer-harness';

const RECORDED_SAMPLE_ID = '1058b2ad-0e0c-4f2e-8a5b-3c7d9e1f2a3b';
const SAMPLE_ID = 'a3c1e0f2-b4d6-4f0e-9c7a-5b3d1e2f4a6b';

let harness: ViewerHarness;
beforeAll(async () => {
  harness = await startViewerHarness({ withCatalog: true });
});
afterAll(async () => {
  await harness?.stop();
});
afterEach(() => harness.closePagesExpectingClean());

it('the list shows each conversation\'s tokens and time, "no token usage recorded" where none was, and the sum', async () => {
  const { page } = await harness.open('/');
  await page.locator('.conversation-list li').first().waitFor();
  const usageOf = (id: string) => page.locator(`li[data-conversation-id="${id}"] .conversation-usage`).textContent();
  await expect(usageOf(RECORDED_SAMPLE_ID)).resolves.toBe('1,620 in / 270 out tokens · 3.2 s');
  await expect(usageOf(SAMPLE_ID)).resolves.toBe('no token usage recorded · 1 h 3 min');
  await expect(page.locator('.list-usage').textContent()).resolves.toMatch(
    /^Usage: 1,620 in \/ 270 out tokens \(1 of \d+ conversations recorded tokens\) · .+ in all$/,
  );
});

it("a conversation's header shows its usage", async () => {
  const { page } = await harness.open(`/?conversation=${RECORDED_SAMPLE_ID}`);
  await page.locator('article.event').first().waitFor();
  await page.getByText('1,620 in / 270 out tokens', { exact: false }).first().waitFor();
});
