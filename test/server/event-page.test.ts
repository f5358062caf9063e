import { eventPageBody } from '../../src/server/event-page';
import { packBatch, unpackBatch } from '../../src/store/packed-batch';
import { PayloadSlab } from '../../src/store/payload-slab';
import type { DecodedFile } from '../../src/store/event-file-batches';
import { isUnserved } from '../../src/store/event-file-batches';

const events = Array.from({ length: 6 }, (_, i) => Buffer.from(JSON.stringify({ id: `e${i}`, pad: 'x'.repeat(i * 5) })));
const parsed = (parts: readonly Buffer[]) => JSON.parse(Buffer.concat(parts).toString('utf8'));
const itemsOf = (indexes: number[]) => indexes.map((i) => JSON.parse(events[i]!.toString('utf8')));

function keptInSlab(): Buffer[] {
  const slab = new PayloadSlab();
  return events.map((event) => slab.copy(event, event.length));
}

function keptInPackedBatch(): Buffer[] {
  const files: DecodedFile[] = events.map((payload, i) => ({
    id: `e${i}`,
    kind: 'MessageEvent',
    source: 'user',
    micros: i,
    position: i,
    text: undefined,
    payload,
  }));
  files.splice(2, 0, { unserved: 'skipped', reason: 'not JSON' });
  const { batch } = packBatch({ files, unlisted: files.map(() => undefined) });
  return unpackBatch(batch)
    .files.filter((file) => !isUnserved(file))
    .map((file) => (file as { payload: Buffer }).payload);
}

describe.each([
  ['a payload slab', keptInSlab],
  ['a packed batch', keptInPackedBatch],
])('a page of events kept in %s', (_where, keep) => {
  it('is one piece between the frame when the events are consecutive', () => {
    const kept = keep();

    const { parts } = eventPageBody(kept, 'e6');

    expect(parts).toHaveLength(3);
    expect(parsed(parts)).toEqual({ items: itemsOf([0, 1, 2, 3, 4, 5]), next_page_id: 'e6' });
  });

  it('starts a new piece wherever an event is left out', () => {
    const kept = keep();

    const { parts } = eventPageBody([kept[0]!, kept[2]!, kept[3]!, kept[5]!], null);

    expect(parsed(parts)).toEqual({ items: itemsOf([0, 2, 3, 5]), next_page_id: null });
    expect(parts).toHaveLength(1 + 3 + 2 + 1);
  });

  it('serves events in descending order each on its own', () => {
    const kept = keep();

    expect(parsed(eventPageBody([kept[4]!, kept[3]!, kept[2]!], 'e1').parts)).toEqual({ items: itemsOf([4, 3, 2]), next_page_id: 'e1' });
  });
});

describe('eventPageBody', () => {
  it('joins adjacent events only across a comma', () => {
    const memory = Buffer.from('{"a":1}{"b":2}');
    const first = memory.subarray(0, 7);
    const second = memory.subarray(7);

    expect(parsed(eventPageBody([first, second], null).parts)).toEqual({ items: [{ a: 1 }, { b: 2 }], next_page_id: null });
  });

  it('frames an empty page', () => {
    expect(Buffer.concat(eventPageBody([], null).parts).toString()).toBe('{"items":[],"next_page_id":null}');
  });

  it('serves the bytes as stored, whitespace and key order included', () => {
    const stored = Buffer.from('{ "z": 1,  "a": "é" }');

    expect(Buffer.concat(eventPageBody([stored], null).parts).toString()).toBe('{"items":[{ "z": 1,  "a": "é" }],"next_page_id":null}');
  });
});
