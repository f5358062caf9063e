/**
 * Which file serves each position of a conversation. A conversation of 100k events would
 * spend about 10 MB holding every file name as a string; what is needed is only whether a
 * changed or deleted name is the file already serving its position, or a second file
 * claiming the same index. So each position remembers a 32-bit hash of its file's name
 * (FNV-1a). Two names at one position colliding on it would take odds of one in four
 * billion, and two files claiming one index at all is already an anomaly.
 *
 * Positions are file indexes, counted from 0, so they are held in typed arrays indexed by
 * position: 5 bytes a position, nothing for the garbage collector to trace, and no pause
 * to rehash 100k entries as a Map has when it grows. Positions from a million on
 * (odd names such as event-99999999999-x.json) go to a Map, so that no name can make the
 * arrays huge.
 */
import type { EventFileName } from './event-file-name';

/** At most 5 MB of arrays, reached only by a conversation of a million events (or one odd name). */
const DENSE_POSITIONS = 1 << 20;
const FIRST_CAPACITY = 1024;

export class ServedFiles {
  private hashes = new Int32Array(FIRST_CAPACITY);
  private served = new Uint8Array(FIRST_CAPACITY);
  private readonly sparse = new Map<number, number>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** True when `file` is the one serving its position. */
  isServing(file: EventFileName): boolean {
    return this.hashAt(file.position) === nameHash(file.name);
  }

  /** True when another file serves `file`'s position. */
  isTakenByAnother(file: EventFileName): boolean {
    const served = this.hashAt(file.position);
    return served !== undefined && served !== nameHash(file.name);
  }

  serve(file: EventFileName): void {
    const { position } = file;
    if (this.hashAt(position) === undefined) this.count++;
    if (position >= DENSE_POSITIONS) {
      this.sparse.set(position, nameHash(file.name));
      return;
    }
    if (position >= this.hashes.length) this.grow(position);
    this.hashes[position] = nameHash(file.name);
    this.served[position] = 1;
  }

  /** Forgets `file` if it is the one serving its position; returns whether it was. */
  unserve(file: EventFileName): boolean {
    if (!this.isServing(file)) return false;
    this.unservePosition(file.position);
    return true;
  }

  /** Forgets whatever serves `position`. */
  unservePosition(position: number): void {
    if (this.hashAt(position) === undefined) return;
    this.count--;
    if (position >= DENSE_POSITIONS) this.sparse.delete(position);
    else this.served[position] = 0;
  }

  /** The served positions none of `files` accounts for: their files are gone. */
  positionsMissingFrom(files: readonly EventFileName[]): number[] {
    const present = new Map<number, number[]>();
    for (const file of files) {
      const hashes = present.get(file.position);
      if (hashes) hashes.push(nameHash(file.name));
      else present.set(file.position, [nameHash(file.name)]);
    }
    const missing: number[] = [];
    this.forEachServed((position, hash) => {
      if (!present.get(position)?.includes(hash)) missing.push(position);
    });
    return missing;
  }

  private hashAt(position: number): number | undefined {
    if (position >= DENSE_POSITIONS) return this.sparse.get(position);
    return this.served[position] === 1 ? this.hashes[position] : undefined;
  }

  private forEachServed(visit: (position: number, hash: number) => void): void {
    for (let position = 0; position < this.served.length; position++) {
      if (this.served[position] === 1) visit(position, this.hashes[position]!);
    }
    for (const [position, hash] of this.sparse) visit(position, hash);
  }

  private grow(position: number): void {
    let capacity = this.hashes.length;
    while (capacity <= position) capacity *= 2;
    const hashes = new Int32Array(Math.min(capacity, DENSE_POSITIONS));
    const served = new Uint8Array(hashes.length);
    hashes.set(this.hashes);
    served.set(this.served);
    this.hashes = hashes;
    this.served = served;
  }
}

function nameHash(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // Signed, the way Int32Array hands it back.
  return hash | 0;
}
