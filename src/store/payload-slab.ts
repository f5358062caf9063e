/**
 * Packs a conversation's event bytes into shared slabs instead of one allocation per
 * event. Node's own pool only takes buffers under 4 KB and wastes the tail of each 8 KB
 * pool; larger events would each get their own allocation and its bookkeeping. Slabs
 * start small, so a short conversation does not reserve a megabyte, and grow by doubling.
 * A slab is freed when the last event in it is: conversations are dropped whole.
 */
const FIRST_SLAB_BYTES = 16 * 1024;
const MAX_SLAB_BYTES = 1024 * 1024;
/** Larger payloads get an allocation of their own rather than most of a slab. */
const OWN_ALLOCATION_BYTES = MAX_SLAB_BYTES / 4;
const COMMA = 0x2c;

/** Where a reader copies the bytes it serves (event-file-batches.ts). */
export interface PayloadKeeper {
  /** A copy of the first `length` bytes of `source`. */
  copy(source: Uint8Array, length: number): Buffer;
}

export class PayloadSlab implements PayloadKeeper {
  private slab: Buffer = Buffer.allocUnsafeSlow(0);
  private used = 0;
  private nextSlabBytes = FIRST_SLAB_BYTES;

  /** A copy of the first `length` bytes of `source`, kept in a slab and followed there by a comma (see event-page.ts). */
  copy(source: Uint8Array, length: number): Buffer {
    if (length >= OWN_ALLOCATION_BYTES) return Buffer.from(source.subarray(0, length));
    if (this.used + length + 1 > this.slab.length) this.startSlab(length + 1);
    const start = this.used;
    this.slab.set(source.subarray(0, length), start);
    this.slab[start + length] = COMMA;
    this.used += length + 1;
    return this.slab.subarray(start, start + length);
  }

  /**
   * Ends the current slab: when less than three quarters of it is used, its used bytes move
   * to a buffer of their exact size, and `moved` hears of the old and the new, so their
   * holder can point to the new one. Called when a load is done: a small conversation's
   * last slab is otherwise mostly empty. The next copy starts a new slab.
   */
  seal(moved: (from: ArrayBufferLike, to: Buffer) => void): void {
    const slab = this.slab;
    const used = this.used;
    this.slab = Buffer.allocUnsafeSlow(0);
    this.used = 0;
    // What comes after a load is a trickle of appended events: small slabs again.
    this.nextSlabBytes = FIRST_SLAB_BYTES;
    if (used === 0 || used * 4 >= slab.length * 3) return;
    const exact = Buffer.allocUnsafeSlow(used);
    slab.copy(exact, 0, 0, used);
    moved(slab.buffer, exact);
  }

  private startSlab(atLeast: number): void {
    const bytes = Math.max(this.nextSlabBytes, atLeast);
    this.slab = Buffer.allocUnsafeSlow(bytes);
    this.used = 0;
    this.nextSlabBytes = Math.min(bytes * 2, MAX_SLAB_BYTES);
  }
}
