import { EventIndex, searchEvents } from '../../src/search';
import { type DecodedFile, isUnserved } from '../../src/store/directory/load/read-and-decode';
import { packBatch, unpackBatch } from '../../src/store/directory/load/workers/batch-transfer';
import { PayloadSlab } from '../../src/store/directory/memory/payload-slabs';
import { StoredPayloads } from '../../src/store/directory/memory/payload-column';

const slabbed = (slab: PayloadSlab, json: string) => {
  const bytes = Buffer.from(json);
  return slab.copy(bytes, bytes.length);
};

function indexOfPayloads(events: { id: string; json: string; position: number }[]) {
  const slab = new PayloadSlab();
  const index = new EventIndex<Buffer>(new StoredPayloads());
  for (const { id, json, position } of events) {
    index.upsert({ id, kind: 'PauseEvent', source: 'user', micros: position, position, text: undefined, payload: slabbed(slab, json) });
  }
  return index;
}

describe('StoredPayloads: payloads and ids as places in the stored bytes', () => {
  it('serves each payload and finds each id, whether the id is in the JSON, escaped there, or only in the file name', () => {
    const events = [
      { id: 'a1b2c3d4-0000-4000-8000-000000000001', json: '{"id":"a1b2c3d4-0000-4000-8000-000000000001","kind":"PauseEvent"}', position: 0 },
      { id: 'quo"ted', json: '{"id":"quo\\"ted","kind":"PauseEvent"}', position: 1 },
      { id: 'from-file-name', json: '{"kind":"PauseEvent"}', position: 2 },
      { id: 'ünïcode', json: '{"id":"ünïcode","kind":"PauseEvent"}', position: 3 },
    ];
    const index = indexOfPayloads(events);
    for (const event of events) {
      const found = index.findById(event.id);
      expect(found?.id).toBe(event.id);
      expect(found?.payload.toString()).toBe(event.json);
    }
    expect(index.findById('a1b2c3d4-0000-4000-8000-00000000000')).toBeUndefined();
    expect(index.findById('unicode')).toBeUndefined();
    expect(index.findById('quo')).toBeUndefined();
  });

  it('events in different buffers are never joined, though their offsets line up', () => {
    const index = new EventIndex<Buffer>(new StoredPayloads());
    // Memory of their own (not Node's shared pool), with b at the offset where a's run would continue.
    const inOwnMemory = (text: string) => {
      const buffer = Buffer.allocUnsafeSlow(text.length);
      buffer.write(text);
      return buffer;
    };
    const first = inOwnMemory('{"id":"a"},');
    const second = inOwnMemory('xxxxxxxxxxx{"id":"b"}');
    index.upsert({ id: 'a', kind: 'PauseEvent', source: 'user', micros: 0, position: 0, text: undefined, payload: first.subarray(0, 10) });
    index.upsert({ id: 'b', kind: 'PauseEvent', source: 'user', micros: 1, position: 1, text: undefined, payload: second.subarray(11) });
    expect(index.payloadsOf([index.slotOfId('a'), index.slotOfId('b')]).map(String)).toEqual(['{"id":"a"}', '{"id":"b"}']);
  });

  it('pages hand out the stored bytes and name the next event by its id', () => {
    const events = Array.from({ length: 5 }, (_, i) => ({ id: `e${i}`, json: `{"id":"e${i}"}`, position: i }));
    const index = indexOfPayloads(events);
    const page = searchEvents(index, { sortOrder: 'TIMESTAMP', limit: 2, pageId: 'e1' });
    expect(page.slots.map((slot) => String(index.payloadAt(slot)))).toEqual(['{"id":"e1"}', '{"id":"e2"}']);
    expect(page.nextPageId).toBe('e3');
  });

  it('lets a buffer go when its last payload is removed, and reuses freed slots', () => {
    const index = indexOfPayloads([
      { id: 'x', json: '{"id":"x"}', position: 0 },
      { id: 'y', json: '{"id":"y"}', position: 1 },
    ]);
    const held = index.memory().payloadBytes;
    expect(held).toBeGreaterThan(0);
    index.remove(0);
    expect(index.memory().payloadBytes).toBe(held);
    index.remove(1);
    expect(index.memory().payloadBytes).toBe(0);
    expect(index.size).toBe(0);
    index.upsert({
      id: 'z',
      kind: 'PauseEvent',
      source: 'user',
      micros: 1,
      position: 5,
      text: undefined,
      payload: slabbed(new PayloadSlab(), '{"id":"z"}'),
    });
    expect(index.findById('z')?.payload.toString()).toBe('{"id":"z"}');
    expect(index.findById('x')).toBeUndefined();
  });

  it('costs well under 64 bytes an event beside the payloads for a loaded conversation', () => {
    const events = Array.from({ length: 20_000 }, (_, i) => {
      const id = `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
      return { id, json: `{"id":"${id}","kind":"PauseEvent","timestamp":"x"}`, position: i };
    });
    const index = indexOfPayloads(events);
    index.trim();
    expect(index.memory().indexBytes / index.size).toBeLessThan(64);
    expect(index.findById(events[12_345]!.id)?.position).toBe(12_345);
  });
});

const jsons = Array.from({ length: 6 }, (_, i) => JSON.stringify({ id: `e${i}`, pad: 'x'.repeat(i * 5) }));

/** The six events as a main-thread load keeps them. */
function keptInSlab(): Buffer[] {
  const slab = new PayloadSlab();
  return jsons.map((json) => slabbed(slab, json));
}

/** The six events as a decode worker hands them over, with a skipped file among them. */
function keptInPackedBatch(): Buffer[] {
  const files: DecodedFile[] = jsons.map((json, i) => ({
    id: `e${i}`,
    kind: 'MessageEvent',
    source: 'user',
    micros: i,
    position: i,
    text: undefined,
    payload: Buffer.from(json),
  }));
  files.splice(2, 0, { because: 'broken', reason: 'not JSON' });
  const { batch } = packBatch({ files, unlisted: files.map(() => undefined) });
  return unpackBatch(batch)
    .files.filter((file) => !isUnserved(file))
    .map((file) => (file as { payload: Buffer }).payload);
}

describe.each([
  ['a payload slab', keptInSlab],
  ['a packed batch', keptInPackedBatch],
])('a page of events kept in %s', (_where, keep) => {
  const pieces = (picked: number[]) => {
    const index = new EventIndex<Buffer>(new StoredPayloads());
    keep().forEach((payload, i) => {
      index.upsert({ id: `e${i}`, kind: 'PauseEvent', source: 'user', micros: i, position: i, text: undefined, payload });
    });
    return index.payloadsOf(picked.map((i) => index.slotOfId(`e${i}`))).map(String);
  };

  it('is one piece when the events are consecutive', () => {
    expect(pieces([0, 1, 2, 3, 4, 5])).toEqual([jsons.join(',')]);
  });

  it('starts a new piece wherever an event is left out, and never spans bytes outside the page', () => {
    expect(pieces([0, 2, 3, 5])).toEqual([jsons[0], `${jsons[2]},${jsons[3]}`, jsons[5]]);
  });

  it('hands over events in descending order each on its own', () => {
    expect(pieces([4, 3, 2])).toEqual([jsons[4], jsons[3], jsons[2]]);
  });

  it('hands over nothing for an empty page', () => {
    expect(pieces([])).toEqual([]);
  });
});
