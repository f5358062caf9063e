/**
 * Event ids to slots without a string per event: an open-addressing hash table in an
 * Int32Array (linear probing, at most three quarters full), holding slots. The index keeps
 * one byte of each slot's id hash (its tag): a lookup asks the index to compare the id
 * itself only for slots whose tag matches. The full hash of a held slot is computed from
 * its id again when the table grows, which is rare.
 */

const EMPTY = 0;
/** A removed entry: probing goes on past it; an insert may reuse it. */
const REMOVED = -1;
const FIRST_CAPACITY = 64;

/** FNV-1a over the id's UTF-16 code units. */
export function idHash(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

export class IdTable {
  /** slot + 1, EMPTY or REMOVED. */
  private table = new Int32Array(FIRST_CAPACITY);
  private used = 0;
  private removed = 0;

  /**
   * @param hashOf the id hash of a slot the table holds (it may cost a decoding of the id)
   * @param tagOf the slot's tag: `idTag` of its hash, kept by the index
   */
  constructor(
    private readonly hashOf: (slot: number) => number,
    private readonly tagOf: (slot: number) => number,
  ) {}

  get byteLength(): number {
    return this.table.byteLength;
  }

  /** The slot whose id hashes to `hash` and `isId`; -1 when none. */
  find(hash: number, isId: (slot: number) => boolean): number {
    const mask = this.table.length - 1;
    const tag = idTag(hash);
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = this.table[i]!;
      if (entry === EMPTY) return -1;
      if (entry !== REMOVED && this.tagOf(entry - 1) === tag && isId(entry - 1)) return entry - 1;
    }
  }

  /** Adds a slot whose id hashes to `hash`. */
  add(slot: number, hash: number): void {
    if ((this.used + this.removed + 1) * 4 > this.table.length * 3) this.rehash(this.used + 1);
    this.place(this.table, slot, hash);
    this.used++;
  }

  /**
   * Makes room for `entries` ids in all, ahead of a load: growing later rehashes every id
   * held in one step, each decoded from its event's bytes again: a stall that grows with the conversation.
   */
  reserve(entries: number): void {
    if (entries * 4 > this.table.length * 3) this.rehash(entries);
  }

  /** Removes a slot whose id hashes to `hash`. */
  remove(slot: number, hash: number): void {
    const mask = this.table.length - 1;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = this.table[i]!;
      if (entry === EMPTY) return;
      if (entry === slot + 1) {
        this.table[i] = REMOVED;
        this.used--;
        this.removed++;
        return;
      }
    }
  }

  private place(table: Int32Array, slot: number, hash: number): void {
    const mask = table.length - 1;
    let i = hash & mask;
    while (table[i] !== EMPTY && table[i] !== REMOVED) i = (i + 1) & mask;
    if (table[i] === REMOVED) this.removed--;
    table[i] = slot + 1;
  }

  private rehash(entries: number): void {
    let capacity = FIRST_CAPACITY;
    // Between three eighths and three quarters full: 5-11 bytes an id, amortised O(1) an insert.
    while (entries * 4 > capacity * 3) capacity *= 2;
    const old = this.table;
    this.table = new Int32Array(capacity);
    this.removed = 0;
    for (const entry of old) if (entry !== EMPTY && entry !== REMOVED) this.place(this.table, entry - 1, this.hashOf(entry - 1));
  }
}

/** The byte of an id hash the index keeps per slot: its top bits, as the low ones pick the bucket. */
export function idTag(hash: number): number {
  return hash >>> 24;
}
