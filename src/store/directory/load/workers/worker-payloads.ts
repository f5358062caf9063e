/**
 * A decode worker's payloads between reading and packing (directory/load/workers/batch-transfer.ts). Each batch is
 * packed into a fresh buffer for transfer anyway, so its payloads wait in one area reused
 * for every batch: no new memory for the kernel to map and unmap per batch, which on a
 * virtual machine costs more than the copying itself.
 */
import type { PayloadKeeper } from '../../memory/payload-slabs';

/** Enough for a batch of typical events (LOAD_POLICY.filesPerBatch); a larger batch grows it. */
const INITIAL_BYTES = 1024 * 1024;

export class WorkerPayloads implements PayloadKeeper {
  private area = Buffer.allocUnsafeSlow(INITIAL_BYTES);
  private used = 0;

  /** Starts a batch: the previous batch's copies must have been packed. */
  reset(): void {
    this.used = 0;
  }

  copy(source: Uint8Array, length: number): Buffer {
    if (this.used + length > this.area.length) {
      // Copies made so far keep the old area alive until they are packed.
      this.area = Buffer.allocUnsafeSlow(Math.max(this.area.length * 2, length));
      this.used = 0;
    }
    const start = this.used;
    this.area.set(source.subarray(0, length), start);
    this.used += length;
    return this.area.subarray(start, this.used);
  }
}
