/**
 * The event files of a conversation that are not served, and why. One name for all of them,
 * *unserved*, and one field that says why, `because`, with the values the stored-event
 * decision uses (stored-event/decide.ts) plus `gone`:
 * - `gone`: deleted since it was listed; nothing is remembered of it;
 * - `broken`: unreadable, not JSON, or its known fields break the contract. Retried on
 *   every rescan, since a file caught half-written completes;
 * - `unknown-kind`, `unknown-value`: a newer server wrote a kind or an enum value the
 *   contract does not have. The file is complete, so it is not read again until it changes.
 */
import { countUnder, type StoredEventCounts } from '../../stored-event/counts';

export type UnservedFile = { because: 'gone' } | { because: 'broken' | 'unknown-kind' | 'unknown-value'; reason: string };

/** An unserved file worth remembering: every kind but `gone`. */
export type RememberedUnservedFile = Exclude<UnservedFile, { because: 'gone' }>;

export class UnservedFiles {
  /** Broken files: name to the reason. */
  private readonly broken = new Map<string, string>();
  /** Files of kinds or values the contract does not have: name to why. */
  private readonly unknown = new Map<string, RememberedUnservedFile>();

  get brokenCount(): number {
    return this.broken.size;
  }

  get unknownCount(): number {
    return this.unknown.size;
  }

  /** Remembers why `name` is not served; true when it was not already remembered for a reason of this kind (broken, or unknown). */
  remember(name: string, file: RememberedUnservedFile): boolean {
    if (file.because === 'broken') {
      this.unknown.delete(name);
      const isNew = !this.broken.has(name);
      this.broken.set(name, file.reason);
      return isNew;
    }
    this.broken.delete(name);
    const isNew = !this.unknown.has(name);
    this.unknown.set(name, file);
    return isNew;
  }

  /** Forgets `name` (it is served now, or gone); true when it was remembered as broken. */
  forget(name: string): boolean {
    this.unknown.delete(name);
    return this.broken.delete(name);
  }

  /** Whether `name` is remembered with a kind or value the contract does not have: a rescan need not read it again. */
  isUnknown(name: string): boolean {
    return this.unknown.has(name);
  }

  /** The broken files' names, to be read again. */
  brokenNames(): string[] {
    return [...this.broken.keys()];
  }

  /**
   * Forgets the files a listing no longer has. `unknownListed` (how many listed names were
   * remembered as unknown) spares the walk over them when they are all still there.
   */
  forgetAllBut(listed: readonly string[], unknownListed: number): void {
    const present = unknownListed < this.unknown.size || this.broken.size > 0 ? new Set(listed) : undefined;
    if (!present) return;
    if (unknownListed < this.unknown.size) for (const name of [...this.unknown.keys()]) if (!present.has(name)) this.unknown.delete(name);
    for (const name of [...this.broken.keys()]) if (!present.has(name)) this.broken.delete(name);
  }

  /** Adds what is not served to a conversation's counts (stored-event/counts.ts). */
  countInto(counts: StoredEventCounts): void {
    for (const file of this.unknown.values()) {
      countUnder(file.because === 'unknown-kind' ? counts.notServedByKind : counts.notServedByValue, file.reason);
    }
    counts.brokenFiles = this.broken.size;
  }
}
