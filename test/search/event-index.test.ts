import { EventIndex, compareEvents } from '../../src/search';
import { entry, indexOf } from './indexed';

const idsIn = (list: readonly { id: string }[] | undefined) => (list ?? []).map((event) => event.id);

describe('EventIndex', () => {
  it('orders by timestamp, then storage position, whatever the insertion order', () => {
    const index = indexOf([
      entry('late', 0, { micros: 300 }),
      entry('tie-b', 2, { micros: 200 }),
      entry('early', 3, { micros: 100 }),
      entry('tie-a', 1, { micros: 200 }),
      entry('tie-c', 4, { micros: 200 }),
    ]);
    expect(idsIn(index.events())).toEqual(['early', 'tie-a', 'tie-b', 'tie-c', 'late']);
    expect(index.size).toBe(5);
  });

  it('puts events without a readable timestamp first, in storage order', () => {
    const index = indexOf([
      entry('dated', 0, { micros: -5 }),
      entry('undated-2', 2, { micros: undefined }),
      entry('undated-1', 1, { micros: undefined }),
    ]);
    expect(idsIn(index.events())).toEqual(['undated-1', 'undated-2', 'dated']);
  });

  it('keeps the same order in the per-kind and per-source lists, and leaves sourceless events out of the latter', () => {
    const index = indexOf([
      entry('m2', 3, { kind: 'MessageEvent', source: 'user', micros: 50 }),
      entry('a1', 0, { kind: 'ActionEvent', source: 'agent', micros: 10 }),
      entry('m1', 1, { kind: 'MessageEvent', source: 'agent', micros: 50 }),
      entry('e1', 2, { kind: 'ConversationErrorEvent', source: undefined, micros: 20 }),
    ]);
    expect(idsIn(index.events())).toEqual(['a1', 'e1', 'm1', 'm2']);
    expect(idsIn(index.events({ kind: 'MessageEvent' }))).toEqual(['m1', 'm2']);
    expect(idsIn(index.events({ kind: 'ActionEvent' }))).toEqual(['a1']);
    expect(idsIn(index.events({ source: 'agent' }))).toEqual(['a1', 'm1']);
    expect(idsIn(index.events({ source: 'user' }))).toEqual(['m2']);
    expect(idsIn(index.events({ source: 'environment' }))).toEqual([]);
  });

  it('replaces the event stored at the same position everywhere it was listed', () => {
    const index = indexOf([entry('a', 0), entry('b', 1, { kind: 'MessageEvent', source: 'user' }), entry('c', 2)]);
    index.upsert(entry('b2', 1, { kind: 'PauseEvent', source: 'environment', micros: 25 }));

    expect(idsIn(index.events())).toEqual(['a', 'c', 'b2']);
    expect(index.size).toBe(3);
    expect(index.findById('b')).toBeUndefined();
    expect(index.findById('b2')?.position).toBe(1);
    expect(idsIn(index.events({ kind: 'MessageEvent' }))).toEqual([]);
    expect(idsIn(index.events({ kind: 'PauseEvent' }))).toEqual(['b2']);
    expect(idsIn(index.events({ source: 'user' }))).toEqual([]);
    expect(idsIn(index.events({ source: 'environment' }))).toEqual(['b2']);
  });

  it('replacing an event with the same id keeps it findable', () => {
    const index = indexOf([entry('a', 0), entry('b', 1)]);
    index.upsert(entry('b', 1, { micros: 1 }));
    expect(idsIn(index.events())).toEqual(['a', 'b']);
    expect(index.findById('b')?.micros).toBe(1);
  });

  it('removes by position from every list, and ignores a position it does not hold', () => {
    const index = indexOf([entry('a', 0, { source: 'user' }), entry('b', 1, { source: 'user' }), entry('c', 2, { source: 'user' })]);
    index.remove(1);
    index.remove(99);

    expect(idsIn(index.events())).toEqual(['a', 'c']);
    expect(idsIn(index.events({ kind: 'ActionEvent' }))).toEqual(['a', 'c']);
    expect(idsIn(index.events({ source: 'user' }))).toEqual(['a', 'c']);
    expect(index.findById('b')).toBeUndefined();
    expect(index.hasPosition(1)).toBe(false);
    expect(index.hasPosition(2)).toBe(true);
    expect(index.size).toBe(2);
  });

  it('removes the right one of several events with the same timestamp', () => {
    const index = indexOf([
      entry('t0', 0, { micros: 7 }),
      entry('t1', 1, { micros: 7 }),
      entry('t2', 2, { micros: 7 }),
      entry('t3', 3, { micros: 7 }),
    ]);
    index.remove(2);
    expect(idsIn(index.events())).toEqual(['t0', 't1', 't3']);
    index.remove(0);
    expect(idsIn(index.events())).toEqual(['t1', 't3']);
  });

  it('keeps positions beyond 32 bits exact, and in order', () => {
    const huge = 2 ** 40 + 1;
    const index = indexOf([entry('small', 5, { micros: 7 }), entry('huge', huge, { micros: 7 }), entry('middle', 2 ** 31, { micros: 7 })]);
    expect(index.events().map((event) => event.position)).toEqual([5, 2 ** 31, huge]);
    expect(index.hasPosition(huge)).toBe(true);
    index.remove(huge);
    expect(idsIn(index.events())).toEqual(['small', 'middle']);
  });

  it('an empty index has no events', () => {
    const index = new EventIndex<string>();
    expect(index.size).toBe(0);
    expect(index.findById('x')).toBeUndefined();
  });
});

describe('compareEvents, and the binary searches over a list', () => {
  const list = [
    entry('u', 0, { micros: undefined }),
    entry('a', 1, { micros: 10 }),
    entry('b', 2, { micros: 20 }),
    entry('c', 3, { micros: 20 }),
    entry('d', 4, { micros: 30 }),
  ];

  it('compares undated events by position rather than as equal', () => {
    expect(compareEvents(entry('x', 1, { micros: undefined }), entry('y', 2, { micros: undefined }))).toBeLessThan(0);
    expect(compareEvents(entry('x', 2, { micros: undefined }), entry('y', 1, { micros: undefined }))).toBeGreaterThan(0);
    expect(compareEvents(entry('x', 9, { micros: undefined }), entry('y', 1, { micros: 0 }))).toBeLessThan(0);
  });

  it.each([
    ['before everything', -100, 1],
    ['exactly the first dated event', 10, 1],
    ['between two events', 15, 2],
    ['exactly a tie: the first of the tie', 20, 2],
    ['after everything', 31, 5],
  ])('firstAtOrAfter %s', (_name, micros, want) => {
    const index = indexOf(list);
    expect(index.firstAtOrAfter(index.list({ all: true }), micros)).toBe(want);
  });

  it('placeOf finds the place of a listed event in the whole list and in a kind list', () => {
    const index = indexOf([...list, entry('m', 5, { micros: 15, kind: 'MessageEvent' })]);
    expect(index.placeOf(index.list({ all: true }), index.slotOfId('c'))).toBe(4);
    expect(index.placeOf(index.list({ all: true }), index.slotOfId('m'))).toBe(2);
    expect(index.placeOf(index.list({ kind: 'MessageEvent' }), index.slotOfId('m'))).toBe(0);
    expect(index.placeOf(index.list({ kind: 'ActionEvent' }), index.slotOfId('d'))).toBe(4);
  });
});
