/**
 * Which file serves each position of a conversation. A conversation of 100k events would
 * spend megabytes holding every file name as a string; what is needed is only whether a
 * changed or deleted name is the file already serving its position, or a second file
 * claiming the same index. So each position remembers a 32-bit hash of its file's name
 * (FNV-1a). Two names at one position colliding on it would take odds of one in four
 * billion, and two files claiming one index at all is already an anomaly.
 *
 * Each position also remembers which properties the contract does not list its event had
 * (a code into a short table of such sets), so the counts an operator reads stay right as
 * files change.
 *
 * Both are held in position tables (src/search/position-table.ts), as the index holds its
 * rows by position: 6 bytes a position.
 */
import { PositionTable } from '../../../search';
import type { EventFileName } from '../load/event-file-name';

const FIRST_CAPACITY = 1024;
/** Codes in `outcomes`: nothing served, served with nothing unlisted, then one per set of unlisted properties. */
const NOT_SERVED = 0;
const NOTHING_UNLISTED = 1;
const FIRST_SET_CODE = 2;
const MAX_CODE = 0xffff;
/** Where sets beyond the table's room are counted: only a stream of ever-new property names gets here. */
const OTHER_PROPERTIES = '(other properties)';

export class ServedFiles {
  /** Per position, the hash of the name of the file serving it; read only where `outcomes` says a file serves it. */
  private readonly hashes = new PositionTable(new Int32Array(0), FIRST_CAPACITY);
  private readonly outcomes = new PositionTable(new Uint16Array(0), FIRST_CAPACITY);
  private count = 0;
  /** Sets of unlisted properties (comma-joined), by code minus FIRST_SET_CODE, and back. */
  private readonly sets: string[] = [];
  private readonly codes = new Map<string, number>();
  /** Served positions per code. */
  private readonly perCode: number[] = [0, 0];

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

  /** Serves `file` at its position; `unlisted` names the properties the contract does not list (comma-joined). */
  serve(file: EventFileName, unlisted?: string): void {
    const { position } = file;
    this.unservePosition(position);
    const outcome = this.codeOf(unlisted);
    this.count++;
    this.perCode[outcome] = (this.perCode[outcome] ?? 0) + 1;
    this.hashes.set(position, nameHash(file.name));
    this.outcomes.set(position, outcome);
  }

  /** Served files with nothing unlisted, and per set of unlisted properties (comma-joined), how many files had it. */
  unlistedCounts(): { nothingUnlisted: number; bySet: Map<string, number> } {
    const bySet = new Map<string, number>();
    for (let code = FIRST_SET_CODE; code < this.perCode.length; code++) {
      const count = this.perCode[code]!;
      if (count > 0) bySet.set(this.sets[code - FIRST_SET_CODE]!, count);
    }
    return { nothingUnlisted: this.perCode[NOTHING_UNLISTED]!, bySet };
  }

  /** Forgets `file` if it is the one serving its position; returns whether it was. */
  unserve(file: EventFileName): boolean {
    if (!this.isServing(file)) return false;
    this.unservePosition(file.position);
    return true;
  }

  /** Forgets whatever serves `position`. */
  unservePosition(position: number): void {
    const outcome = this.outcomes.get(position);
    if (outcome === NOT_SERVED) return;
    this.count--;
    this.perCode[outcome]!--;
    this.outcomes.set(position, NOT_SERVED);
    this.hashes.set(position, 0);
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
    return this.outcomes.get(position) === NOT_SERVED ? undefined : this.hashes.get(position);
  }

  private codeOf(unlisted: string | undefined): number {
    if (unlisted === undefined) return NOTHING_UNLISTED;
    const known = this.codes.get(unlisted);
    if (known !== undefined) return known;
    const set = FIRST_SET_CODE + this.sets.length < MAX_CODE ? unlisted : OTHER_PROPERTIES;
    const code = this.codes.get(set) ?? FIRST_SET_CODE + this.sets.length;
    if (!this.codes.has(set)) {
      this.sets.push(set);
      this.codes.set(set, code);
      this.perCode[code] = 0;
    }
    return code;
  }

  private forEachServed(visit: (position: number, hash: number) => void): void {
    this.outcomes.forEach((position) => {
      visit(position, this.hashes.get(position));
    });
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
