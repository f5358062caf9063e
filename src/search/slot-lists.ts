/**
 * Lists of event slots (small integers naming an event's row in the index's columns), kept
 * in search order. A list is an Int32Array with spare room at its end: four bytes an
 * event, nothing for the garbage collector to trace, and an append in order costs O(1).
 */

/** Orders two slots: negative when `a` comes first. Supplied by the index, which holds the columns. */
export type SlotOrder = (a: number, b: number) => number;

const FIRST_CAPACITY = 16;

export class SlotList {
  private slots = new Int32Array(FIRST_CAPACITY);
  private count = 0;

  get length(): number {
    return this.count;
  }

  at(i: number): number {
    return this.slots[i]!;
  }

  /** Bytes held, spare room included. */
  get byteLength(): number {
    return this.slots.byteLength;
  }

  /** Inserts `slot` at its place in `order`: at the end, in O(1), when it comes last. */
  insert(slot: number, order: SlotOrder): void {
    if (this.count === this.slots.length) this.grow();
    const at = this.count === 0 || order(this.slots[this.count - 1]!, slot) <= 0 ? this.count : this.firstNotBefore((s) => order(s, slot) < 0);
    if (at < this.count) this.slots.copyWithin(at + 1, at, this.count);
    this.slots[at] = slot;
    this.count++;
  }

  /** Removes `slot`, found by its place in `order`; nothing when it is not listed. */
  remove(slot: number, order: SlotOrder): void {
    const at = this.firstNotBefore((s) => order(s, slot) < 0);
    if (at === this.count || this.slots[at] !== slot) return;
    this.slots.copyWithin(at, at + 1, this.count);
    this.count--;
  }

  /** Binary search over a list in which every slot `isBefore` comes first: the first index whose slot is not. */
  firstNotBefore(isBefore: (slot: number) => boolean): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (isBefore(this.slots[mid]!)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Gives back spare room beyond a sixteenth: called when a load ends, when the list will mostly be read. */
  trim(): void {
    const wanted = Math.max(FIRST_CAPACITY, this.count + (this.count >>> 4));
    if (this.slots.length > wanted) this.slots = this.slots.slice(0, wanted);
  }

  private grow(): void {
    const next = new Int32Array(this.slots.length + (this.slots.length >>> 1) + FIRST_CAPACITY);
    next.set(this.slots.subarray(0, this.count));
    this.slots = next;
  }
}
