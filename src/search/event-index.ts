import type { EventKind } from '../contract';
import { IdTable, idHash, idTag } from './id-table';
import { EVENT_KINDS } from './kinds';
import { SlotList, type SlotOrder } from './slot-lists';
import { PositionTable } from './position-table';
import type { Micros } from './timestamps';
import { resized } from './typed-arrays';

/** What the search needs to know of one stored event; `payload` is whatever the store serves. */
export interface IndexedEvent<Payload> {
  id: string;
  kind: EventKind;
  /** The stored source, or the kind's default when none is stored. */
  source: string | undefined;
  /** Undefined when the event has no readable timestamp; such events sort first. */
  micros: Micros | undefined;
  /** Storage position (the file's index); breaks ties between equal timestamps. */
  position: number;
  /** Lower-cased searchable text, for message events only. */
  text: string | undefined;
  payload: Payload;
}

/**
 * Where an index keeps its events' payloads and ids, by slot. The store's column
 * (src/store/directory/memory/payload-column.ts) keeps a payload as a place in a shared buffer and finds
 * the id inside the payload's own bytes; the default keeps both as they are given.
 */
export interface PayloadColumn<Payload> {
  /** Makes room for slots below `capacity`. */
  reserve(capacity: number): void;
  keep(slot: number, payload: Payload, id: string): void;
  release(slot: number): void;
  payload(slot: number): Payload;
  /**
   * The payloads of `slots`, in order, for a page. A column may hand over several
   * consecutive ones as one payload where its layout already joins them (StoredPayloads).
   */
  payloadsOf(slots: readonly number[]): Payload[];
  id(slot: number): string;
  hasId(slot: number, id: string): boolean;
  /** Memory held for the payloads' bytes themselves, and for the column's own bookkeeping. */
  memory(): { payloadBytes: number; overheadBytes: number };
}

/** Keeps payloads and ids in plain arrays (tests, and payloads that are not stored bytes). */
export class HeldPayloads<Payload> implements PayloadColumn<Payload> {
  private readonly payloads: (Payload | undefined)[] = [];
  private readonly ids: (string | undefined)[] = [];
  reserve(): void {}
  keep(slot: number, payload: Payload, id: string): void {
    this.payloads[slot] = payload;
    this.ids[slot] = id;
  }
  release(slot: number): void {
    this.payloads[slot] = undefined;
    this.ids[slot] = undefined;
  }
  payload(slot: number): Payload {
    return this.payloads[slot]!;
  }
  payloadsOf(slots: readonly number[]): Payload[] {
    return slots.map((slot) => this.payloads[slot]!);
  }
  id(slot: number): string {
    return this.ids[slot]!;
  }
  hasId(slot: number, id: string): boolean {
    return this.ids[slot] === id;
  }
  memory(): { payloadBytes: number; overheadBytes: number } {
    return { payloadBytes: 0, overheadBytes: this.ids.length * 16 };
  }
}

type Entry = IndexedEvent<unknown>;

/** Orders by timestamp, then storage position. */
export function compareEvents(a: Entry, b: Entry): number {
  const at = a.micros ?? -Infinity;
  const bt = b.micros ?? -Infinity;
  return at - bt || a.position - b.position;
}

export interface IndexMemory {
  readonly payloadBytes: number;
  readonly indexBytes: number;
}

/** Which list of the index a search walks: every event, one kind's, or one source's. */
export type ListKey = { all: true } | { kind: EventKind } | { source: string };

const FIRST_CAPACITY = 64;
const NO_SOURCE = 0;
const KIND_CODE = new Map<EventKind, number>(EVENT_KINDS.map((kind, code) => [kind, code]));

/**
 * A conversation's events in search order, with the same order kept per kind and per
 * source, so a filtered page starts with a binary search instead of a scan from the
 * first event. Appends in timestamp order cost O(1); an out-of-order event is inserted.
 *
 * Each event is a slot, a row of typed-array columns (timestamp, position, kind, source,
 * a byte of the id's hash), and the lists hold slots. Ids are found through a hash table of slots
 * (id-table.ts), positions through an array indexed by position. Message events' search
 * text is the only string kept per event. So an event costs a few dozen bytes beside
 * its payload, and the garbage collector has almost nothing to trace.
 */
export class EventIndex<Payload> {
  private capacity = 0;
  private count = 0;
  /** The next slot never used; freed slots are reused first. */
  private nextSlot = 0;
  private readonly freeSlots: number[] = [];
  private micros = new Float64Array(0);
  /** Int32 while every position fits, as file indexes do; Float64 once one does not. */
  private positions: Int32Array | Float64Array = new Int32Array(0);
  private idTags = new Uint8Array(0);
  private kinds = new Uint8Array(0);
  private sources = new Uint8Array(0);
  /** Source names by code; code 0 is "no source". */
  private readonly sourceNames: (string | undefined)[] = [undefined];
  private readonly sourceCodes = new Map<string, number>();
  private readonly texts = new Map<number, string>();
  private readonly all = new SlotList();
  private readonly kindLists: (SlotList | undefined)[] = [];
  private readonly sourceLists: (SlotList | undefined)[] = [];
  private readonly ids = new IdTable(
    (slot) => idHash(this.payloads.id(slot)),
    (slot) => this.idTags[slot]!,
  );
  /** slot + 1 at each position (0: none). */
  private readonly slotByPosition = new PositionTable(new Int32Array(0), FIRST_CAPACITY);
  private measured: IndexMemory | undefined;
  private highestPosition = -1;

  /** Search order over slots: timestamp (none first), then position. */
  readonly order: SlotOrder = (a, b) => {
    const at = this.micros[a]!;
    const bt = this.micros[b]!;
    return (Number.isNaN(at) ? -Infinity : at) - (Number.isNaN(bt) ? -Infinity : bt) || this.positions[a]! - this.positions[b]!;
  };

  constructor(private readonly payloads: PayloadColumn<Payload> = new HeldPayloads<Payload>()) {}

  get size(): number {
    return this.count;
  }

  /** The event with this id, or undefined. */
  findById(id: string): IndexedEvent<Payload> | undefined {
    const slot = this.slotOfId(id);
    return slot < 0 ? undefined : this.eventAt(slot);
  }

  /** The slot of the event with this id; -1 when none. */
  slotOfId(id: string): number {
    return this.ids.find(idHash(id), (slot) => this.payloads.hasId(slot, id));
  }

  hasPosition(position: number): boolean {
    return this.slotAtPosition(position) >= 0;
  }

  /** Makes room for `events` in all, so that a load of that many grows nothing on the way. */
  reserve(events: number): void {
    // Geometric, as growing one event at a time would copy every column for each appended file.
    if (events > this.capacity) this.resize(Math.max(events, this.capacity + (this.capacity >>> 1)));
    this.ids.reserve(events);
  }

  /** Adds an event, replacing the one stored at the same position. */
  upsert(event: IndexedEvent<Payload>): void {
    this.remove(event.position);
    this.measured = undefined;
    const slot = this.takeSlot();
    this.micros[slot] = event.micros ?? Number.NaN;
    if (this.positions instanceof Int32Array && (event.position | 0) !== event.position) this.positions = Float64Array.from(this.positions);
    this.positions[slot] = event.position;
    const hash = idHash(event.id);
    this.idTags[slot] = idTag(hash);
    this.kinds[slot] = KIND_CODE.get(event.kind)!;
    this.sources[slot] = event.source === undefined ? NO_SOURCE : this.sourceCode(event.source);
    if (event.text !== undefined) this.texts.set(slot, event.text);
    this.payloads.keep(slot, event.payload, event.id);
    this.all.insert(slot, this.order);
    listAt(this.kindLists, this.kinds[slot]!).insert(slot, this.order);
    if (this.sources[slot] !== NO_SOURCE) listAt(this.sourceLists, this.sources[slot]!).insert(slot, this.order);
    // A later event with an id already held takes the id over, as a Map's set would.
    const holder = this.ids.find(hash, (other) => this.payloads.hasId(other, event.id));
    if (holder >= 0) this.ids.remove(holder, hash);
    this.ids.add(slot, hash);
    this.setSlotAtPosition(event.position, slot);
    if (event.position > this.highestPosition) this.highestPosition = event.position;
    this.count++;
  }

  /** Removes the event stored at a position, if any. */
  remove(position: number): void {
    const slot = this.slotAtPosition(position);
    if (slot < 0) return;
    this.measured = undefined;
    this.all.remove(slot, this.order);
    this.kindLists[this.kinds[slot]!]?.remove(slot, this.order);
    if (this.sources[slot] !== NO_SOURCE) this.sourceLists[this.sources[slot]!]?.remove(slot, this.order);
    const id = this.payloads.id(slot);
    if (this.slotOfId(id) === slot) this.ids.remove(slot, idHash(id));
    this.payloads.release(slot);
    this.texts.delete(slot);
    this.setSlotAtPosition(position, -1);
    this.freeSlots.push(slot);
    this.count--;
  }

  /** The list a search walks; empty when no event has that kind or source. */
  list(key: ListKey): SlotList {
    if ('kind' in key) return this.kindLists[KIND_CODE.get(key.kind)!] ?? EMPTY_LIST;
    if ('source' in key) {
      const code = this.sourceCodes.get(key.source);
      return (code === undefined ? undefined : this.sourceLists[code]) ?? EMPTY_LIST;
    }
    return this.all;
  }

  microsAt(slot: number): Micros | undefined {
    const micros = this.micros[slot]!;
    return Number.isNaN(micros) ? undefined : micros;
  }

  /** The event's storage position (its file's index). */
  positionAt(slot: number): number {
    return this.positions[slot]!;
  }

  kindAt(slot: number): EventKind {
    return EVENT_KINDS[this.kinds[slot]!]!;
  }

  sourceAt(slot: number): string | undefined {
    return this.sourceNames[this.sources[slot]!];
  }

  /** Whether the slot's kind is `kind`, without building a string. */
  hasKind(slot: number, kind: EventKind): boolean {
    return this.kinds[slot] === KIND_CODE.get(kind);
  }

  /** Whether the slot's source is `source`: a comparison of small integers. */
  hasSource(slot: number, source: string): boolean {
    const code = this.sourceCodes.get(source);
    return code !== undefined && this.sources[slot] === code;
  }

  textAt(slot: number): string | undefined {
    return this.texts.get(slot);
  }

  payloadAt(slot: number): Payload {
    return this.payloads.payload(slot);
  }

  /** A page's payloads (see PayloadColumn.payloadsOf: consecutive ones may come joined). */
  payloadsOf(slots: readonly number[]): Payload[] {
    return this.payloads.payloadsOf(slots);
  }

  idAt(slot: number): string {
    return this.payloads.id(slot);
  }

  /** The highest position ever held (-1 before the first event): where the events appended later begin. */
  get lastPosition(): number {
    return this.highestPosition;
  }

  /** Up to `limit` slots of the events at positions after `position`, in position (append) order. */
  slotsAfterPosition(position: number, limit: number): number[] {
    return this.slotByPosition.valuesAfter(position, limit, this.highestPosition + 1).map((value) => value - 1);
  }

  /** The whole entry of a slot: for single events (get by id) and tests, not for pages. */
  eventAt(slot: number): IndexedEvent<Payload> {
    return {
      id: this.idAt(slot),
      kind: this.kindAt(slot),
      source: this.sourceAt(slot),
      micros: this.microsAt(slot),
      position: this.positions[slot]!,
      text: this.textAt(slot),
      payload: this.payloadAt(slot),
    };
  }

  /** Every event of a list in search order, as entries: O(n), for inspection and tests. */
  events(key: ListKey = { all: true }): IndexedEvent<Payload>[] {
    const list = this.list(key);
    const events: IndexedEvent<Payload>[] = [];
    for (let i = 0; i < list.length; i++) events.push(this.eventAt(list.at(i)));
    return events;
  }

  /** Index in `list` of the first slot not before `slot` in search order. */
  placeOf(list: SlotList, slot: number): number {
    return list.firstNotBefore((other) => this.order(other, slot) < 0);
  }

  /** Index in `list` of the first slot whose timestamp is at or after `micros`. */
  firstAtOrAfter(list: SlotList, micros: Micros): number {
    return list.firstNotBefore((slot) => {
      const at = this.micros[slot]!;
      return (Number.isNaN(at) ? -Infinity : at) < micros;
    });
  }

  /**
   * Gives back the spare room of the columns and lists: called when a load is done, so
   * that a conversation that is mostly read holds about what it needs.
   */
  trim(): void {
    this.measured = undefined;
    this.all.trim();
    for (const list of this.kindLists) list?.trim();
    for (const list of this.sourceLists) list?.trim();
    const wanted = this.nextSlot + (this.nextSlot >>> 4) + 1;
    if (this.capacity > wanted) this.resize(wanted);
    this.slotByPosition.trim();
  }

  /**
   * What the index holds: its payloads' bytes, and everything else (columns, lists, tables,
   * search texts). Kept until the next change: a memory budget asks every held conversation
   * each time one is loaded.
   */
  memory(): IndexMemory {
    this.measured ??= this.measure();
    return this.measured;
  }

  private measure(): IndexMemory {
    const { payloadBytes, overheadBytes } = this.payloads.memory();
    let lists = this.all.byteLength;
    for (const list of this.kindLists) lists += list?.byteLength ?? 0;
    for (const list of this.sourceLists) lists += list?.byteLength ?? 0;
    let texts = 0;
    // A string costs its characters (one byte each when Latin-1, two otherwise; counted as one) and a header, plus a Map entry.
    for (const text of this.texts.values()) texts += text.length + 48;
    const columns =
      this.micros.byteLength +
      this.positions.byteLength +
      this.idTags.byteLength +
      this.kinds.byteLength +
      this.sources.byteLength +
      this.slotByPosition.byteLength;
    return { payloadBytes, indexBytes: columns + lists + this.ids.byteLength + texts + overheadBytes };
  }

  private sourceCode(source: string): number {
    let code = this.sourceCodes.get(source);
    if (code === undefined) {
      // The contract's sources are an enum of a handful; a byte holds them with room to spare.
      if (this.sourceNames.length > 255) throw new Error(`More than 255 distinct event sources in one conversation (at ${JSON.stringify(source)})`);
      code = this.sourceNames.length;
      this.sourceNames.push(source);
      this.sourceCodes.set(source, code);
    }
    return code;
  }

  private takeSlot(): number {
    const free = this.freeSlots.pop();
    if (free !== undefined) return free;
    if (this.nextSlot === this.capacity) this.resize(Math.max(FIRST_CAPACITY, this.capacity + (this.capacity >>> 1)));
    return this.nextSlot++;
  }

  private resize(capacity: number): void {
    this.micros = resized(this.micros, capacity);
    this.positions = resized(this.positions, capacity);
    this.idTags = resized(this.idTags, capacity);
    this.kinds = resized(this.kinds, capacity);
    this.sources = resized(this.sources, capacity);
    this.payloads.reserve(capacity);
    this.capacity = capacity;
  }

  private slotAtPosition(position: number): number {
    return this.slotByPosition.get(position) - 1;
  }

  private setSlotAtPosition(position: number, slot: number): void {
    this.slotByPosition.set(position, slot + 1);
  }
}

const EMPTY_LIST = new SlotList();

function listAt(lists: (SlotList | undefined)[], code: number): SlotList {
  let list = lists[code];
  if (list === undefined) {
    list = new SlotList();
    lists[code] = list;
  }
  return list;
}
