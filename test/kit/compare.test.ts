import { loadOpenApiDocument } from '../../src/contract';
import { firstDifference, setValuedProperties } from '../../src/kit/run/compare';

describe('--compare: what counts as a difference', () => {
  const setValued = setValuedProperties(loadOpenApiDocument());

  it('reads the set-valued properties from the contract (uniqueItems arrays)', () => {
    expect([...setValued]).toContain('forgotten_event_ids');
  });

  it('ignores the order of a set, and still reports a different member or a missing one', () => {
    const stored = { items: [{ kind: 'Condensation', forgotten_event_ids: ['a', 'b', 'c'] }] };
    const reordered = { items: [{ kind: 'Condensation', forgotten_event_ids: ['c', 'a', 'b'] }] };
    expect(firstDifference(stored, reordered, '$', setValued)).toBeUndefined();
    expect(firstDifference(stored, { items: [{ kind: 'Condensation', forgotten_event_ids: ['c', 'a', 'x'] }] }, '$', setValued)).toBe(
      '$.items[0].forgotten_event_ids[1]: "b" vs "c"',
    );
    expect(firstDifference(stored, { items: [{ kind: 'Condensation', forgotten_event_ids: ['a', 'b'] }] }, '$', setValued)).toBe(
      '$.items[0].forgotten_event_ids: 3 items vs 2',
    );
  });

  it('keeps the order of every other array', () => {
    expect(firstDifference({ items: ['a', 'b'] }, { items: ['b', 'a'] }, '$', setValued)).toBe('$.items[0]: "a" vs "b"');
    expect(firstDifference({ forgotten_event_ids: ['a', 'b'] }, { forgotten_event_ids: ['b', 'a'] }, '$')).toBe(
      '$.forgotten_event_ids[0]: "a" vs "b"',
    );
  });
});
