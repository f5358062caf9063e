/**
 * Packs a conversation's event bytes into shared slabs instead of one allocation per
 * event. Node's own pool only takes buffers under 4 KB and wastes the tail of each 8 KB
 * pool; larger events would each get their own allocation and its bookkeeping.
 *
 * Every slab has the same size. Conversations are read and dropped again and again under
 * a memory budget, and the system allocator reuses freed blocks of one size for the next
 * ones, where slabs of many sizes (growing ones, or one trimmed to its exact size at the
 * end of a load) leave freed memory it can neither reuse nor return (bench/README.md,
 * "Measurements behind choices in the code"). A slab is freed when the last event in it is.
 */
import { type ItemsJson, layOut, layOutAlone, laidOutLength } from './items-json';

const SLAB_BYTES = 64 * 1024;
/** Larger payloads get an allocation of their own rather than most of a slab. */
const OWN_ALLOCATION_BYTES = SLAB_BYTES / 4;

/** Where a reader copies the bytes it serves (directory/load/read-and-decode.ts). */
export interface PayloadKeeper<Payload extends Buffer = Buffer> {
  /** A copy of the first `length` bytes of `source`. */
  copy(source: Uint8Array, length: number): Payload;
}

export class PayloadSlab implements PayloadKeeper<ItemsJson> {
  private slab: Buffer = Buffer.allocUnsafeSlow(0);
  private used = 0;

  /** A copy of the first `length` bytes of `source`, laid out in a slab for pages (items-json.ts). */
  copy(source: Uint8Array, length: number): ItemsJson {
    if (length >= OWN_ALLOCATION_BYTES) return layOutAlone(source, length);
    if (this.used + laidOutLength(length) > this.slab.length) {
      this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.used = 0;
    }
    const copy = layOut(this.slab, this.used, source, length);
    this.used += laidOutLength(length);
    return copy;
  }
}
