import { PayloadSlab } from '../../src/store/directory/memory/payload-slabs';

describe('PayloadSlab', () => {
  it('keeps each copy intact while later copies fill the slab and the next ones', () => {
    const slab = new PayloadSlab();
    const sources = Array.from({ length: 300 }, (_, i) => Buffer.from(`{"n":${i},"pad":"${'x'.repeat(i * 7)}"}`));

    const copies = sources.map((source) => slab.copy(source, source.length));

    for (const [i, copy] of copies.entries()) expect(copy.equals(sources[i]!)).toBe(true);
    // Several slabs, each the same size, each payload followed by a comma in it.
    const slabs = new Set(copies.map((copy) => copy.buffer));
    expect(slabs.size).toBeGreaterThan(1);
    for (const buffer of slabs) expect(buffer.byteLength).toBe(64 * 1024);
    for (const copy of copies) expect(Buffer.from(copy.buffer)[copy.byteOffset + copy.length]).toBe(0x2c);
  });

  it('copies only the first `length` bytes', () => {
    const scratch = Buffer.from('{"a":1}garbage');

    expect(new PayloadSlab().copy(scratch, 7).toString()).toBe('{"a":1}');
  });

  it('gives a payload too large for a slab an allocation of its own', () => {
    const big = Buffer.alloc(64 * 1024, 0x61);

    const copy = new PayloadSlab().copy(big, big.length);

    expect(copy.equals(big)).toBe(true);
    expect(copy.buffer).not.toBe(big.buffer);
  });
});
