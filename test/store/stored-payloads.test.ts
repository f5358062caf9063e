import { EventIndex, searchEvents } from '../../src/search';
import { PayloadSlab } from '../../src/store/payload-slab';
import { StoredPayloads } from '../../src/store/stored-payloads';

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

  it('pages hand out the stored bytes and name the next event by its id', () => {
    const events = Array.from({ length: 5 }, (_, i) => ({ id: `e${i}`, json: `{"id":"e${i}"}`, position: i }));
    const index = indexOfPayloads(events);
    const page = searchEvents(index, { sortOrder: 'TIMESTAMP', limit: 2, pageId: 'e1' });
    expect(page.payloads.map(String)).toEqual(['{"id":"e1"}', '{"id":"e2"}']);
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
