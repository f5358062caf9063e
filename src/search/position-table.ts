/**
 * A number per event position, for the index (the row serving each position) and the
 * directory store's served files (the file serving it). Positions are file indexes counted
 * from 0, so below DENSE_POSITIONS the numbers sit in a typed array indexed by position:
 * a few bytes a position, nothing for the garbage collector to trace, and no pause to
 * rehash a Map of 100k entries as it grows. Other positions (negative ones, or far out,
 * such as event-99999999999-x.json) go to a Map, so no file name can make the array huge.
 *
 * 0 stands for "nothing at this position": a caller that needs to keep 0 stores its value
 * plus one.
 */
import { resized } from './typed-arrays';

/** At most a million positions in the array: megabytes, reached only by a conversation of a million events. */
export const DENSE_POSITIONS = 1 << 20;

export class PositionTable<Column extends Int32Array | Uint16Array> {
  private dense: Column;
  private readonly sparse = new Map<number, number>();

  /** `empty` is the column type at length 0; the array grows by half again, from `firstCapacity`. */
  constructor(
    empty: Column,
    private readonly firstCapacity: number,
  ) {
    this.dense = empty;
  }

  /** The number at `position`; 0 when there is none. */
  get(position: number): number {
    if (!isDense(position)) return this.sparse.get(position) ?? 0;
    return position < this.dense.length ? this.dense[position]! : 0;
  }

  /** Sets the number at `position`; 0 clears it. */
  set(position: number, value: number): void {
    if (!isDense(position)) {
      if (value === 0) this.sparse.delete(position);
      else this.sparse.set(position, value);
      return;
    }
    if (position >= this.dense.length) {
      if (value === 0) return;
      const length = Math.min(DENSE_POSITIONS, Math.max(this.firstCapacity, position + 1, this.dense.length + (this.dense.length >>> 1)));
      this.dense = resized(this.dense, length);
    }
    this.dense[position] = value;
  }

  /** Every position holding a number, the array's in ascending order, then the Map's. */
  forEach(visit: (position: number, value: number) => void): void {
    for (let position = 0; position < this.dense.length; position++) {
      const value = this.dense[position]!;
      if (value !== 0) visit(position, value);
    }
    for (const [position, value] of this.sparse) visit(position, value);
  }

  /** Up to `limit` numbers at positions after `position` and before `end`, in position order. */
  valuesAfter(position: number, limit: number, end: number): number[] {
    const values: number[] = [];
    const denseEnd = Math.min(this.dense.length, DENSE_POSITIONS, end);
    for (let at = Math.max(0, Math.floor(position) + 1); at < denseEnd && values.length < limit; at++) {
      const value = this.dense[at]!;
      if (value !== 0) values.push(value);
    }
    if (values.length < limit && this.sparse.size > 0) {
      const later = [...this.sparse].filter(([at]) => at > position && at >= 0).sort((a, b) => a[0] - b[0]);
      for (const [, value] of later.slice(0, limit - values.length)) values.push(value);
    }
    return values;
  }

  /** Gives back the array's room past the last position holding a number. */
  trim(): void {
    let used = this.dense.length;
    while (used > 0 && this.dense[used - 1] === 0) used--;
    if (used < this.dense.length) this.dense = resized(this.dense, used);
  }

  /** The array's bytes, and an estimate for the Map's entries. */
  get byteLength(): number {
    return this.dense.byteLength + this.sparse.size * 40;
  }
}

function isDense(position: number): boolean {
  return position >= 0 && position < DENSE_POSITIONS;
}
