/**
 * Which file serves each position of a conversation. A conversation of 100k events would
 * spend about 10 MB holding every file name as a string; what is needed is only whether a
 * changed or deleted name is the file already serving its position, or a second file
 * claiming the same index. So each position remembers a 32-bit hash of its file's name
 * (FNV-1a). Two names at one position colliding on it would take odds of one in four
 * billion, and two files claiming one index at all is already an anomaly.
 */
import type { EventFileName } from './event-file-name';

export class ServedFiles {
  private readonly nameHashByPosition = new Map<number, number>();

  get size(): number {
    return this.nameHashByPosition.size;
  }

  /** True when `file` is the one serving its position. */
  isServing(file: EventFileName): boolean {
    return this.nameHashByPosition.get(file.position) === nameHash(file.name);
  }

  /** True when another file serves `file`'s position. */
  isTakenByAnother(file: EventFileName): boolean {
    const served = this.nameHashByPosition.get(file.position);
    return served !== undefined && served !== nameHash(file.name);
  }

  serve(file: EventFileName): void {
    this.nameHashByPosition.set(file.position, nameHash(file.name));
  }

  /** Forgets `file` if it is the one serving its position; returns whether it was. */
  unserve(file: EventFileName): boolean {
    if (!this.isServing(file)) return false;
    this.nameHashByPosition.delete(file.position);
    return true;
  }

  /** Forgets whatever serves `position`. */
  unservePosition(position: number): void {
    this.nameHashByPosition.delete(position);
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
    for (const [position, hash] of this.nameHashByPosition) {
      if (!present.get(position)?.includes(hash)) missing.push(position);
    }
    return missing;
  }
}

function nameHash(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
