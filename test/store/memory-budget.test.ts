/**
 * The memory budget (`memoryBudgetBytes`): the least recently used conversations are
 * dropped once what is held passes it, and read again, whole and right, when asked for.
 */
import { createConversation, storeOverTemporaryRoot, userMessage, writeEvent, type StoreUnderTest } from './conversations-on-disk';
import { type EventKey, searchEvents } from '../../src/search';

let t: StoreUnderTest;
afterEach(() => t.cleanUp());

const hexOf = (n: number) => `c0ffee00${String(n).padStart(24, '0')}`;
const EVENTS_EACH = 40;

/** Conversations of EVENTS_EACH messages whose text names the conversation. */
function writeConversations(count: number): void {
  for (let n = 0; n < count; n++) {
    const events = createConversation(t.root, hexOf(n));
    for (let i = 0; i < EVENTS_EACH; i++) {
      const text = `conversation ${n} message ${i} ${'x'.repeat(400)}`;
      const { id, timestamp } = userMessage(i);
      writeEvent(events, i, {
        id,
        timestamp,
        source: 'user',
        kind: 'MessageEvent',
        llm_message: { role: 'user', content: [{ type: 'text', text }] },
      });
    }
  }
}

async function firstText(n: number): Promise<string> {
  const index = await t.store.open(hexOf(n));
  const page = searchEvents(index!, { sortOrder: 'TIMESTAMP', limit: 1 });
  const event = JSON.parse(index!.payloadAt(page.slots[0]!).toString()) as { llm_message: { content: { text: string }[] } };
  return event.llm_message.content[0]!.text;
}

describe('memory budget', () => {
  it('the search across conversations walks them all within the budget, with the same pages as without one', async () => {
    t = storeOverTemporaryRoot();
    writeConversations(1);
    await t.store.open(hexOf(0));
    const oneConversation = t.store.health().bytesHeld;
    await t.cleanUp();

    const walkAll = async (): Promise<string[]> => {
      const texts: string[] = [];
      let after: EventKey | undefined;
      do {
        const page = await t.store.searchAll({ sortOrder: 'TIMESTAMP_DESC', limit: 25, body: 'message 1', ...(after ? { after } : {}) });
        texts.push(...page.hits.map((hit) => `${hit.key.hex} ${hit.json.toString()}`));
        after = page.next ?? undefined;
        // Never more held than the budget and the one conversation being walked.
        const health = t.store.health();
        if (health.memoryBudgetBytes !== null) expect(health.bytesHeld).toBeLessThanOrEqual(health.memoryBudgetBytes + oneConversation);
      } while (after);
      return texts;
    };
    t = storeOverTemporaryRoot();
    writeConversations(8);
    const unbounded = await walkAll();
    await t.cleanUp();

    t = storeOverTemporaryRoot({ memoryBudgetBytes: Math.floor(oneConversation * 2.5) });
    writeConversations(8);
    expect(await walkAll()).toEqual(unbounded);
    expect(unbounded).toHaveLength(8 * 11);
    expect(t.store.health().conversationsDropped).toBeGreaterThan(0);
    expect(await t.store.countAll({ body: 'message 1' })).toBe(unbounded.length);
  });

  it('holds about what the budget allows, drops the least recently used, and reads a dropped one again on demand', async () => {
    // Measure one conversation, then allow about three.
    t = storeOverTemporaryRoot();
    writeConversations(1);
    await t.store.open(hexOf(0));
    const oneConversation = t.store.health().bytesHeld;
    expect(oneConversation).toBeGreaterThan(EVENTS_EACH * 400);
    await t.cleanUp();

    t = storeOverTemporaryRoot({ memoryBudgetBytes: Math.floor(oneConversation * 3.5) });
    writeConversations(6);
    for (let n = 0; n < 6; n++) expect(await firstText(n)).toMatch(new RegExp(`^conversation ${n} message 0 `));
    const afterSix = t.store.health();
    expect(afterSix).toMatchObject({ conversationsLoaded: 3, eventsLoaded: 3 * EVENTS_EACH, conversationsDropped: 3 });
    expect(afterSix.bytesHeld).toBeLessThanOrEqual(afterSix.memoryBudgetBytes!);

    // 3 was used last among the held ones; using 3 again keeps it, and 0 comes back whole.
    expect(await firstText(3)).toMatch(/^conversation 3 /);
    expect(await firstText(0)).toMatch(/^conversation 0 /);
    expect((await t.store.open(hexOf(0)))!.size).toBe(EVENTS_EACH);
    const held = t
      .logged('info', 'conversation dropped from memory: least recently used, over the memory budget')
      .map((entry) => entry['conversation']);
    expect(held).toEqual([hexOf(0), hexOf(1), hexOf(2), hexOf(4)]);
    expect(t.store.health()).toMatchObject({ conversationsLoaded: 3, conversationsDropped: 4 });
  });

  it('serves a conversation larger than the whole budget, and drops it first when another is asked for', async () => {
    t = storeOverTemporaryRoot({ memoryBudgetBytes: 1024 });
    writeConversations(2);
    expect(await firstText(0)).toMatch(/^conversation 0 /);
    expect(t.store.health()).toMatchObject({ conversationsLoaded: 1, conversationsDropped: 0 });
    expect(await firstText(1)).toMatch(/^conversation 1 /);
    expect(t.store.health()).toMatchObject({ conversationsLoaded: 1, conversationsDropped: 1 });
    expect(await firstText(0)).toMatch(/^conversation 0 /);
  });

  it('counts what the decode workers hold against the budget while they run', async () => {
    // Two small conversations fit a 1 MiB budget, but a running worker's heap alone is over it.
    t = storeOverTemporaryRoot({ memoryBudgetBytes: 1024 * 1024, decodeInWorkersFrom: Number.POSITIVE_INFINITY });
    writeConversations(2);
    await firstText(0);
    await firstText(1);
    expect(t.store.health()).toMatchObject({ conversationsLoaded: 2, conversationsDropped: 0, decodeWorkerBytes: 0 });
    await t.cleanUp();

    t = storeOverTemporaryRoot({ memoryBudgetBytes: 1024 * 1024, decodeInWorkersFrom: 0 });
    writeConversations(2);
    expect(await firstText(0)).toMatch(/^conversation 0 /);
    expect(await firstText(1)).toMatch(/^conversation 1 /);
    const health = t.store.health();
    expect(health.decodeWorkerBytes).toBeGreaterThan(1024 * 1024);
    expect(health).toMatchObject({ conversationsLoaded: 1, conversationsDropped: 1 });
  });

  it('without a budget keeps every conversation', async () => {
    t = storeOverTemporaryRoot();
    writeConversations(4);
    for (let n = 0; n < 4; n++) await firstText(n);
    expect(t.store.health()).toMatchObject({ conversationsLoaded: 4, memoryBudgetBytes: null, conversationsDropped: 0 });
  });
});
