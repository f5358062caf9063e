import { PayloadSlab } from '../../src/store/payload-slab';

describe('PayloadSlab', () => {
  it('keeps each copy intact while later copies fill the slab and the next ones', () => {
    const slab = new PayloadSlab();
    const sources = Array.from({ length: 300 }, (_, i) => Buffer.from(`{"n":${i},"pad":"${'x'.repeat(i * 7)}"}`));

    const copies = sources.map((source) => slab.copy(source, source.length));

    copies.forEach((copy, i) => expect(copy.equals(sources[i]!)).toBe(true));
  });

  it('copies only the first `length` bytes', () => {
    const scratch = Buffer.from('{"a":1}garbage');

    expect(new PayloadSlab().copy(scratch, 7).toString()).toBe('{"a":1}');
  });

  it('reuses the bytes of the most recent copy once it is released', () => {
    const slab = new PayloadSlab();
    const kept = slab.copy(Buffer.from('kept'), 4);
    const dropped = slab.copy(Buffer.from('dropped'), 7);

    slab.release(dropped);
    const next = slab.copy(Buffer.from('next'), 4);

    expect(next.byteOffset).toBe(dropped.byteOffset);
    expect(kept.toString()).toBe('kept');
  });

  it('leaves an earlier copy in place when asked to release it', () => {
    const slab = new PayloadSlab();
    const earlier = slab.copy(Buffer.from('earlier'), 7);
    const later = slab.copy(Buffer.from('later'), 5);

    slab.release(earlier);
    slab.copy(Buffer.from('third'), 5);

    expect(earlier.toString()).toBe('earlier');
    expect(later.toString()).toBe('later');
  });

  it('gives a payload too large for a slab an allocation of its own', () => {
    const big = Buffer.alloc(512 * 1024, 0x61);

    const copy = new PayloadSlab().copy(big, big.length);

    expect(copy.equals(big)).toBe(true);
    expect(copy.buffer).not.toBe(big.buffer);
  });
});
