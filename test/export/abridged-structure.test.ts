/**
 * The trace's abridging of a document whose size is in its structure (src/json/abridged-json.ts),
 * with a small bound: past it, items and members are left out with a notice, but the members
 * kept where they sit and the marks anywhere, and what is left is JSON.
 */
import { type Abridging, abridgedJson } from '../../src/json/abridged-json';

const ABRIDGING: Abridging = {
  longerThan: 1000,
  headCharacters: 1000,
  abridge: (head, length) => `${head.slice(0, 10)}[${length}]`,
  structureBytes: 100,
  kept: { kind: {}, call: { id: {} }, parts: { text: {} } },
  marks: new Set(['strategy']),
  omittedItems: (count) => JSON.stringify({ text: `${count} items` }),
  omittedMembers: (count) => `"omitted":"${count} members"`,
};

async function abridged(value: unknown, written = JSON.stringify(value, null, 1)): Promise<unknown> {
  async function* pieces() {
    const bytes = Buffer.from(written);
    for (let at = 0; at < bytes.length; at += 7) yield bytes.subarray(at, at + 7);
  }
  const text = await abridgedJson(pieces(), ABRIDGING);
  return JSON.parse(String(text));
}

test('a small document is copied as it is, its white space left out', async () => {
  const value = { kind: 'A', list: [1, -2.5e3, true, null, 'x'], nested: { a: {} } };
  expect(await abridged(value)).toEqual(value);
});

test('past the bound, items and members are left out with a notice, but those kept where they sit and the marks anywhere', async () => {
  const value = {
    parts: Array.from({ length: 50 }, (_, index) => ({ text: `part ${index}`, other: index })),
    ignored: { id: 'x' },
    call: { name: 'n', id: 'call-1', more: 2 },
    kind: 'ObservationEvent',
  };
  const result = (await abridged(value)) as Record<string, unknown>;
  const parts = result['parts'] as { text: string }[];
  expect(parts.length).toBeLessThan(10);
  expect(parts.at(-1)).toEqual({ text: `${50 - (parts.length - 1)} items` });
  expect(parts[0]).toEqual({ text: 'part 0', other: 0 });
  expect(result['kind']).toBe('ObservationEvent');
  expect(result['call']).toEqual({ id: 'call-1', omitted: '2 members' });
  expect(result['omitted']).toBe('1 members');
  // A mark past the bound is kept with nothing of its text, in an object opened before it: the masking after still sees a credential.
  const credential = { auth: { value: 'v', filler: 'f'.repeat(200), strategy: 'bearer-with-a-long-name', after: 1 }, other: { strategy: 's' } };
  expect(await abridged(credential)).toEqual({
    auth: { value: 'v', filler: 'f'.repeat(200), strategy: '[23]', omitted: '1 members' },
    omitted: '1 members',
  });
});

test('a number longer than any a trace reads is written as null; a kept name given twice past the bound is written once', async () => {
  const written = `{"filler":"${'f'.repeat(200)}","kind":"A","kind":"B","n":${'9'.repeat(2000)}}`;
  expect(await abridged(undefined, written)).toEqual({ filler: 'f'.repeat(200), kind: 'A', omitted: '2 members' });
  expect(await abridged(undefined, `[${'9'.repeat(2000)}]`)).toEqual([null]);
});
