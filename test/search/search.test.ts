import fc from 'fast-check';
import type { EventKind } from '../../src/contract';
import type { IndexedEvent, SearchCriteria } from '../../src/search';
import { entry, indexOf, pageIds, walkAll } from './indexed';

/*
 * Ten events, inserted out of storage order, with a three-way timestamp tie (p2, p3, p4)
 * whose storage order differs from the insertion order.
 *
 *   position  id   micros  kind            source       text
 *   0         p0   100     SystemPrompt    agent
 *   1         p1   200     Message         user         "please fix the Bug"
 *   2         p2   300     Action          agent
 *   3         p3   300     Observation     environment
 *   4         p4   300     Message         agent        "found the bug"
 *   5         p5   400     Pause           user
 *   6         p6   500     Message         user         "thanks"
 *   7         p7   600     Action          agent
 *   8         p8   700     ConvError       (none)
 *   9         p9   800     Message         agent        "bug fixed"
 */
const EVENTS = [
  entry('p9', 9, { micros: 800, kind: 'MessageEvent', source: 'agent', text: 'bug fixed' }),
  entry('p4', 4, { micros: 300, kind: 'MessageEvent', source: 'agent', text: 'found the bug' }),
  entry('p0', 0, { micros: 100, kind: 'SystemPromptEvent', source: 'agent' }),
  entry('p3', 3, { micros: 300, kind: 'ObservationEvent', source: 'environment' }),
  entry('p1', 1, { micros: 200, kind: 'MessageEvent', source: 'user', text: 'please fix the bug' }),
  entry('p6', 6, { micros: 500, kind: 'MessageEvent', source: 'user', text: 'thanks' }),
  entry('p2', 2, { micros: 300, kind: 'ActionEvent', source: 'agent' }),
  entry('p5', 5, { micros: 400, kind: 'PauseEvent', source: 'user' }),
  entry('p8', 8, { micros: 700, kind: 'ConversationErrorEvent', source: undefined }),
  entry('p7', 7, { micros: 600, kind: 'ActionEvent', source: 'agent' }),
];
const ALL = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'];
const index = indexOf(EVENTS);

const asc = (fields: Partial<SearchCriteria> = {}): SearchCriteria => ({ limit: 100, sortOrder: 'TIMESTAMP', ...fields });
const desc = (fields: Partial<SearchCriteria> = {}): SearchCriteria => ({ limit: 100, sortOrder: 'TIMESTAMP_DESC', ...fields });

describe('searchEvents: filters', () => {
  const cases: Array<[string, { given: SearchCriteria; want: string[] }]> = [
    ['no filter: every event in order', { given: asc(), want: ALL }],
    ['kind', { given: asc({ kind: 'MessageEvent' }), want: ['p1', 'p4', 'p6', 'p9'] }],
    ['kind that names no known kind (null) matches nothing', { given: asc({ kind: null }), want: [] }],
    ['kind with no events', { given: asc({ kind: 'TokenEvent' }), want: [] }],
    ['source', { given: asc({ source: 'user' }), want: ['p1', 'p5', 'p6'] }],
    ['unknown source matches nothing', { given: asc({ source: 'robot' }), want: [] }],
    ['body: message events containing the text', { given: asc({ body: 'bug' }), want: ['p1', 'p4', 'p9'] }],
    ['body that no message contains', { given: asc({ body: 'zebra' }), want: [] }],
    ['gte is inclusive', { given: asc({ gte: 300 }), want: ['p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9'] }],
    ['lt is exclusive', { given: asc({ lt: 300 }), want: ['p0', 'p1'] }],
    ['gte and lt: a window', { given: asc({ gte: 300, lt: 500 }), want: ['p2', 'p3', 'p4', 'p5'] }],
    ['gte one microsecond after a tie excludes the whole tie', { given: asc({ gte: 301, lt: 600 }), want: ['p5', 'p6'] }],
    ['an empty window (lt before gte)', { given: asc({ gte: 500, lt: 300 }), want: [] }],
    ['an empty window (lt equal to gte)', { given: asc({ gte: 300, lt: 300 }), want: [] }],
    ['kind and source', { given: asc({ kind: 'MessageEvent', source: 'agent' }), want: ['p4', 'p9'] }],
    ['kind, source, body and window', { given: asc({ kind: 'MessageEvent', source: 'agent', body: 'bug', gte: 200, lt: 800 }), want: ['p4'] }],
    ['body with a kind other than MessageEvent matches nothing', { given: asc({ kind: 'ActionEvent', body: 'bug' }), want: [] }],
    ['source and window', { given: asc({ source: 'agent', gte: 300 }), want: ['p2', 'p4', 'p7', 'p9'] }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(pageIds(index, given)).toEqual({ ids: want, next: null });
  });

  it.each(cases)('descending is the exact reverse: %s', (_name, { given, want }) => {
    expect(pageIds(index, { ...given, sortOrder: 'TIMESTAMP_DESC' })).toEqual({ ids: [...want].reverse(), next: null });
  });
});

describe('searchEvents: paging', () => {
  it('a page holds `limit` events and names the first match that did not fit', () => {
    expect(pageIds(index, asc({ limit: 3 }))).toEqual({ ids: ['p0', 'p1', 'p2'], next: 'p3' });
    expect(pageIds(index, desc({ limit: 3 }))).toEqual({ ids: ['p9', 'p8', 'p7'], next: 'p6' });
  });

  it('the next page starts at the cursor, inclusive', () => {
    expect(pageIds(index, asc({ limit: 3, pageId: 'p3' }))).toEqual({ ids: ['p3', 'p4', 'p5'], next: 'p6' });
    expect(pageIds(index, desc({ limit: 3, pageId: 'p6' }))).toEqual({ ids: ['p6', 'p5', 'p4'], next: 'p3' });
  });

  it('a cursor inside a timestamp tie continues inside the tie in storage order', () => {
    expect(pageIds(index, asc({ limit: 2, pageId: 'p3' }))).toEqual({ ids: ['p3', 'p4'], next: 'p5' });
    expect(pageIds(index, desc({ limit: 2, pageId: 'p3' }))).toEqual({ ids: ['p3', 'p2'], next: 'p1' });
  });

  it('a page that ends exactly at the last match has next null', () => {
    expect(pageIds(index, asc({ limit: 10 }))).toEqual({ ids: ALL, next: null });
    expect(pageIds(index, asc({ limit: 2, pageId: 'p8' }))).toEqual({ ids: ['p8', 'p9'], next: null });
  });

  it('the cursor of a filtered page is the next match, and the filters still apply after it', () => {
    expect(pageIds(index, asc({ kind: 'MessageEvent', limit: 1 }))).toEqual({ ids: ['p1'], next: 'p4' });
    expect(pageIds(index, asc({ kind: 'MessageEvent', limit: 2, pageId: 'p4' }))).toEqual({ ids: ['p4', 'p6'], next: 'p9' });
    expect(pageIds(index, desc({ source: 'user', limit: 2 }))).toEqual({ ids: ['p6', 'p5'], next: 'p1' });
  });

  it('an unknown cursor restarts from the first event of the order (the last, descending)', () => {
    expect(pageIds(index, asc({ limit: 2, pageId: 'nope' }))).toEqual({ ids: ['p0', 'p1'], next: 'p2' });
    expect(pageIds(index, desc({ limit: 2, pageId: 'nope' }))).toEqual({ ids: ['p9', 'p8'], next: 'p7' });
    expect(pageIds(index, asc({ kind: 'MessageEvent', limit: 2, pageId: '' }))).toEqual({ ids: ['p1', 'p4'], next: 'p6' });
  });

  // The reference looks page_id up among the events that pass the filters, so a cursor that
  // the filters exclude restarts the walk like an unknown one.
  it('a cursor naming an event that does not match the filters restarts from the first match', () => {
    expect(pageIds(index, asc({ kind: 'MessageEvent', pageId: 'p5' }))).toEqual({ ids: ['p1', 'p4', 'p6', 'p9'], next: null });
    expect(pageIds(index, desc({ kind: 'MessageEvent', pageId: 'p5' }))).toEqual({ ids: ['p9', 'p6', 'p4', 'p1'], next: null });
    expect(pageIds(index, asc({ source: 'user', pageId: 'p3', limit: 1 }))).toEqual({ ids: ['p1'], next: 'p5' });
  });

  it('a cursor outside the timestamp window restarts from the first event of the window', () => {
    expect(pageIds(index, asc({ gte: 300, lt: 500, pageId: 'p0' }))).toEqual({ ids: ['p2', 'p3', 'p4', 'p5'], next: null });
    expect(pageIds(index, asc({ gte: 300, lt: 500, pageId: 'p9' }))).toEqual({ ids: ['p2', 'p3', 'p4', 'p5'], next: null });
    expect(pageIds(index, desc({ gte: 300, lt: 500, pageId: 'p0' }))).toEqual({ ids: ['p5', 'p4', 'p3', 'p2'], next: null });
  });

  it.each([1, 2, 3, 7, 10, 100])('walking every page with limit %i gives every event once, in order, both ways', (limit) => {
    expect(walkAll(index, asc({ limit })).ids).toEqual(ALL);
    expect(walkAll(index, desc({ limit })).ids).toEqual([...ALL].reverse());
    expect(walkAll(index, asc({ limit, body: 'bug' })).ids).toEqual(['p1', 'p4', 'p9']);
    expect(walkAll(index, desc({ limit, source: 'agent', gte: 150 })).ids).toEqual(['p9', 'p7', 'p4', 'p2']);
  });

  it('walking with limit 1 takes one page per event plus none extra', () => {
    expect(walkAll(index, asc({ limit: 1 })).pages).toBe(10);
  });
});

describe('searchEvents against a plain filter-and-sort over random conversations', () => {
  const KINDS: EventKind[] = ['MessageEvent', 'ActionEvent', 'ObservationEvent', 'PauseEvent'];
  const SOURCES = ['agent', 'user', 'environment', undefined];
  const WORDS = ['alpha', 'beta', 'gamma'];

  const eventArbitrary = fc.record({
    micros: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined, freq: 10 }),
    kind: fc.constantFrom(...KINDS),
    source: fc.constantFrom(...SOURCES),
    word: fc.constantFrom(...WORDS),
  });
  const criteriaArbitrary = fc.record({
    sortOrder: fc.constantFrom('TIMESTAMP' as const, 'TIMESTAMP_DESC' as const),
    limit: fc.integer({ min: 1, max: 8 }),
    kind: fc.option(fc.constantFrom(...KINDS), { nil: undefined }),
    source: fc.option(fc.constantFrom('agent', 'user', 'environment'), { nil: undefined }),
    body: fc.option(fc.constantFrom(...WORDS), { nil: undefined }),
    gte: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
    lt: fc.option(fc.integer({ min: 0, max: 21 }), { nil: undefined }),
  });

  it('every walk returns exactly the matching events in (timestamp, position) order', () => {
    fc.assert(
      fc.property(fc.array(eventArbitrary, { maxLength: 40 }), fc.func(fc.integer()), criteriaArbitrary, (specs, shuffleKey, raw) => {
        const events: IndexedEvent<string>[] = specs.map((spec, position) =>
          entry(`e${position}`, position, {
            micros: spec.micros,
            kind: spec.kind,
            source: spec.source,
            ...(spec.kind === 'MessageEvent' ? { text: `says ${spec.word}` } : {}),
          }),
        );
        const insertionOrder = [...events].sort((a, b) => shuffleKey(a.position) - shuffleKey(b.position) || a.position - b.position);
        const criteria = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined)) as Omit<SearchCriteria, 'pageId'>;

        const expected = events
          .filter((event) => criteria.kind === undefined || event.kind === criteria.kind)
          .filter((event) => criteria.source === undefined || event.source === criteria.source)
          .filter((event) => criteria.body === undefined || ((event.text ?? '').includes(criteria.body) && event.kind === 'MessageEvent'))
          .filter((event) => criteria.gte === undefined || (event.micros !== undefined && event.micros >= criteria.gte))
          .filter((event) => criteria.lt === undefined || event.micros === undefined || event.micros < criteria.lt)
          .sort((a, b) => (a.micros ?? -1) - (b.micros ?? -1) || a.position - b.position)
          .map((event) => event.id);
        if (criteria.sortOrder === 'TIMESTAMP_DESC') expected.reverse();

        expect(walkAll(indexOf(insertionOrder), criteria).ids).toEqual(expected);
      }),
      { seed: 20260616, numRuns: 300 },
    );
  });
});

describe('searchEvents after the index changes', () => {
  it('sees an event appended, an event inserted out of order and an event removed', () => {
    const live = indexOf([entry('a', 0, { micros: 10 }), entry('b', 1, { micros: 20 })]);
    live.upsert(entry('c', 2, { micros: 30 }));
    live.upsert(entry('early', 3, { micros: 5 }));
    live.remove(1);
    expect(pageIds(live, asc()).ids).toEqual(['early', 'a', 'c']);
    expect(pageIds(live, asc({ limit: 1, pageId: 'a' }))).toEqual({ ids: ['a'], next: 'c' });
    expect(pageIds(live, asc({ limit: 1, pageId: 'b' }))).toEqual({ ids: ['early'], next: 'a' });
  });
});
