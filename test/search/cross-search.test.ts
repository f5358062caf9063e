/**
 * The search across conversations over in-memory indexes (src/search/cross-search.ts),
 * property-based: for random conversations with ties in timestamps within and across
 * them, events without a timestamp, random filters, orders and page sizes, walking
 * conversation by conversation and merging (as the directory store does) gives exactly
 * the per-conversation searches merged by timestamp, conversation id, position.
 */
import fc from 'fast-check';
import {
  type CrossSearchCriteria,
  type EventFilters,
  type EventIndex,
  type EventKey,
  type IndexedEvent,
  MergedHits,
  compareKeys,
  searchEvents,
  walkConversation,
} from '../../src/search';
import { entry, indexOf } from './indexed';

interface Conversation {
  hex: string;
  index: EventIndex<string>;
}

/** One page merged over every conversation, as DirectoryStore.searchAll does. */
function page(conversations: readonly Conversation[], criteria: CrossSearchCriteria): { ids: string[]; next: EventKey | null } {
  const wanted = { ...criteria, limit: criteria.limit + 1 };
  const merged = new MergedHits<{ key: EventKey; id: string }>(criteria.sortOrder, wanted.limit);
  for (const { hex, index } of conversations) {
    for (const { slot, key } of walkConversation(index, hex, wanted, merged.until)) merged.add({ key, id: index.payloadAt(slot) });
  }
  const { hits, next } = merged.page(criteria.limit);
  return { ids: hits.map((hit) => hit.id), next };
}

function walk(conversations: readonly Conversation[], criteria: Omit<CrossSearchCriteria, 'from'>): string[] {
  const ids: string[] = [];
  let after: EventKey | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const current = page(conversations, after ? { ...criteria, after } : criteria);
    expect(current.ids.length).toBeLessThanOrEqual(criteria.limit);
    ids.push(...current.ids);
    if (!current.next) return ids;
    after = current.next;
  }
  throw new Error('the walk did not end');
}

/** The definition: each conversation's own search (every page), merged by timestamp, conversation id, position. */
function union(conversations: readonly Conversation[], filters: EventFilters, descending: boolean): string[] {
  const rows: { key: EventKey; id: string }[] = [];
  for (const { hex, index } of conversations) {
    const found = searchEvents(index, { ...filters, sortOrder: 'TIMESTAMP', limit: 1_000_000 });
    for (const slot of found.slots)
      rows.push({ key: { micros: index.microsAt(slot) ?? null, hex, position: index.positionAt(slot) }, id: index.payloadAt(slot) });
  }
  rows.sort((a, b) => compareKeys(a.key, b.key));
  const ids = rows.map((row) => row.id);
  return descending ? ids.reverse() : ids;
}

const eventArbitrary = fc.record({
  micros: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
  kind: fc.constantFrom('MessageEvent', 'ActionEvent', 'PauseEvent' as const),
  source: fc.constantFrom('agent', 'user', 'environment'),
  word: fc.constantFrom('alpha', 'beta', 'gamma'),
});

it('a walk of the merged conversations is exactly the union of their searches, at any page size, in either order', () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(eventArbitrary, { maxLength: 12 }), { minLength: 1, maxLength: 5 }),
      fc.record({
        kind: fc.option(fc.constantFrom('MessageEvent', 'ActionEvent' as const), { nil: undefined }),
        source: fc.option(fc.constantFrom('agent', 'user'), { nil: undefined }),
        body: fc.option(fc.constantFrom('alpha', 'a'), { nil: undefined }),
        gte: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
        lt: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
      }),
      fc.integer({ min: 1, max: 7 }),
      fc.boolean(),
      (shapes, rawFilters, limit, descending) => {
        const conversations = shapes.map((events, c) => ({
          hex: `${String(c).padStart(2, '0')}${'0'.repeat(30)}`,
          index: indexOf(
            events.map(
              (event, position): IndexedEvent<string> =>
                entry(`c${c}-e${position}`, position, {
                  kind: event.kind,
                  source: event.source,
                  micros: event.micros,
                  ...(event.kind === 'MessageEvent' ? { text: `${event.word} text` } : {}),
                }),
            ),
          ),
        }));
        const filters = Object.fromEntries(Object.entries(rawFilters).filter(([, value]) => value !== undefined)) as EventFilters;
        const sortOrder = descending ? 'TIMESTAMP_DESC' : 'TIMESTAMP';
        expect(walk(conversations, { ...filters, sortOrder, limit })).toEqual(union(conversations, filters, descending));
      },
    ),
    { numRuns: 300, seed: 20261125 },
  );
});

it('a page goes on after the last event returned: one added meanwhile that sorts after it comes, one before it does not', () => {
  const first = { hex: 'a'.repeat(32), index: indexOf([entry('a0', 0, { micros: 10 }), entry('a1', 1, { micros: 30 })]) };
  const start = page([first], { sortOrder: 'TIMESTAMP', limit: 1 });
  expect(start.ids).toEqual(['a0']);
  // A conversation appears with one event before the cursor and one after it.
  const added = { hex: 'b'.repeat(32), index: indexOf([entry('b0', 0, { micros: 5 }), entry('b1', 1, { micros: 20 })]) };
  expect(walk([first, added], { sortOrder: 'TIMESTAMP', limit: 1 })).toEqual(['b0', 'a0', 'b1', 'a1']);
  expect(page([first, added], { sortOrder: 'TIMESTAMP', limit: 5, after: start.next! }).ids).toEqual(['b1', 'a1']);
});
