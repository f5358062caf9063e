/**
 * The index's payload column for stored events (src/search/event-index.ts): each event's
 * bytes stay where the load put them (a slab, directory/memory/payload-slabs.ts, or a worker's packed batch,
 * directory/load/workers/batch-transfer.ts), and the column keeps only where: which buffer, at what offset, how
 * long. No Buffer object per event, and nothing for the garbage collector to trace.
 *
 * The id is not kept as a string either: an event's id is written inside its own JSON
 * (`"id":"..."`), so the column keeps where the id's bytes lie in the payload. An id that
 * is not found there as plain bytes (one the JSON escapes, or one taken from the file
 * name) is kept as a string in a Map.
 */
import { resized, type PayloadColumn } from '../../../search';
import { type ItemsJson, continuesItems, itemsAt } from './items-json';

/** Where an id's offset does not fit a Uint16: kept in `otherIds`. */
const ID_ELSEWHERE = 0xffff;
const MAX_ID_BYTES = 0xff;

export class StoredPayloads implements PayloadColumn<ItemsJson> {
  private chunkOf: Uint16Array | Uint32Array = new Uint16Array(0);
  private offsets = new Uint32Array(0);
  private lengths = new Uint32Array(0);
  private idOffsets = new Uint16Array(0);
  private idLengths = new Uint8Array(0);
  private readonly otherIds = new Map<number, string>();
  /** Buffers the payloads lie in, by chunk number; a view over each whole buffer. */
  private readonly chunks: (Buffer | undefined)[] = [];
  private readonly chunkNumbers = new Map<ArrayBufferLike, number>();
  /** Payloads held in each chunk: a chunk whose last payload is released is let go. */
  private readonly chunkUsers: number[] = [];
  private readonly freeChunks: number[] = [];
  private chunkBytes = 0;

  reserve(capacity: number): void {
    this.chunkOf = resized(this.chunkOf, capacity);
    this.offsets = resized(this.offsets, capacity);
    this.lengths = resized(this.lengths, capacity);
    this.idOffsets = resized(this.idOffsets, capacity);
    this.idLengths = resized(this.idLengths, capacity);
  }

  keep(slot: number, payload: ItemsJson, id: string): void {
    const chunk = this.chunkFor(payload.buffer);
    this.chunkOf[slot] = chunk;
    this.offsets[slot] = payload.byteOffset;
    this.lengths[slot] = payload.length;
    this.chunkUsers[chunk]!++;
    const idAt = payload.indexOf(id);
    const idBytes = idAt < 0 ? 0 : Buffer.byteLength(id);
    if (idAt >= 0 && idAt < ID_ELSEWHERE && idBytes <= MAX_ID_BYTES) {
      this.idOffsets[slot] = idAt;
      this.idLengths[slot] = idBytes;
    } else {
      this.idOffsets[slot] = ID_ELSEWHERE;
      this.otherIds.set(slot, id);
    }
  }

  release(slot: number): void {
    const chunk = this.chunkOf[slot]!;
    if (this.idOffsets[slot] === ID_ELSEWHERE) this.otherIds.delete(slot);
    if (--this.chunkUsers[chunk]! === 0) {
      const buffer = this.chunks[chunk]!;
      this.chunkNumbers.delete(buffer.buffer);
      this.chunks[chunk] = undefined;
      this.chunkBytes -= buffer.byteLength;
      this.freeChunks.push(chunk);
    }
  }

  payload(slot: number): ItemsJson {
    const start = this.offsets[slot]!;
    return itemsAt(this.chunks[this.chunkOf[slot]!]!, start, start + this.lengths[slot]!);
  }

  /**
   * A page's payloads as JSON text: a load lays a conversation's events out in file order
   * (items-json.ts), so events that follow one another there are handed over as one view,
   * `a,b,c`, rather than a view each.
   */
  payloadsOf(slots: readonly number[]): ItemsJson[] {
    const pieces: ItemsJson[] = [];
    let chunk = -1;
    let start = 0;
    let end = 0;
    for (const slot of slots) {
      const at = this.offsets[slot]!;
      if (this.chunkOf[slot] === chunk && continuesItems(this.chunks[chunk]!, end, at)) {
        end = at + this.lengths[slot]!;
        continue;
      }
      if (chunk >= 0) pieces.push(itemsAt(this.chunks[chunk]!, start, end));
      chunk = this.chunkOf[slot]!;
      start = at;
      end = at + this.lengths[slot]!;
    }
    if (chunk >= 0) pieces.push(itemsAt(this.chunks[chunk]!, start, end));
    return pieces;
  }

  id(slot: number): string {
    if (this.idOffsets[slot] === ID_ELSEWHERE) return this.otherIds.get(slot)!;
    const start = this.offsets[slot]! + this.idOffsets[slot]!;
    return this.chunks[this.chunkOf[slot]!]!.toString('utf8', start, start + this.idLengths[slot]!);
  }

  hasId(slot: number, id: string): boolean {
    if (this.idOffsets[slot] === ID_ELSEWHERE) return this.otherIds.get(slot) === id;
    const length = this.idLengths[slot]!;
    if (id.length !== length) return id.length < length && this.id(slot) === id;
    const bytes = this.chunks[this.chunkOf[slot]!]!;
    const start = this.offsets[slot]! + this.idOffsets[slot]!;
    for (let i = 0; i < length; i++) {
      const code = id.charCodeAt(i);
      // Past ASCII, characters and bytes no longer pair up one to one.
      if (code > 0x7f) return this.id(slot) === id;
      if (bytes[start + i] !== code) return false;
    }
    return true;
  }

  memory(): { payloadBytes: number; overheadBytes: number } {
    const columns =
      this.chunkOf.byteLength + this.offsets.byteLength + this.lengths.byteLength + this.idOffsets.byteLength + this.idLengths.byteLength;
    // A Map entry and a short string cost about a hundred bytes; a chunk's view and entries a few hundred.
    return { payloadBytes: this.chunkBytes, overheadBytes: columns + this.otherIds.size * 100 + this.chunks.length * 300 };
  }

  private chunkFor(buffer: ArrayBufferLike): number {
    const known = this.chunkNumbers.get(buffer);
    if (known !== undefined) return known;
    const chunk = this.freeChunks.pop() ?? this.chunks.length;
    if (chunk > 0xffff && this.chunkOf instanceof Uint16Array) this.chunkOf = widened(this.chunkOf);
    const view = Buffer.from(buffer);
    this.chunks[chunk] = view;
    this.chunkUsers[chunk] = 0;
    this.chunkNumbers.set(buffer, chunk);
    this.chunkBytes += view.byteLength;
    return chunk;
  }
}

/** Chunk numbers past 65535 (a conversation of millions of events): the column takes four bytes an entry. */
function widened(column: Uint16Array | Uint32Array): Uint32Array {
  return Uint32Array.from(column);
}
