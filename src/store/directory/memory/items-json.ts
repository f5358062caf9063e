/**
 * How the directory store lays out the stored events it keeps, so that a page is sent
 * without copying them: each event's bytes are written followed by a comma in the same
 * buffer. Events that follow one another there are then already the JSON of consecutive
 * items of a list, `a,b,c`, and a page hands them over as one view of the buffer (the
 * pieces of StoredPage.itemsJson, which the server writes between `"items":[` and `]`).
 *
 * This module is the only one that writes the layout (a conversation's slabs on the main
 * thread, a batch's buffer in a decode worker) and the only one that joins it, and the
 * `ItemsJson` type marks the bytes that went through it.
 */

const COMMA = 0x2c;

declare const itemsJson: unique symbol;

/**
 * One or more stored events' JSON, joined with commas, as this module laid them out: when
 * more laid-out bytes follow in the same buffer, a comma lies between. A single event's
 * bytes are a run of one.
 */
export type ItemsJson = Buffer & { readonly [itemsJson]: true };

/** The bytes an event of `length` bytes takes in the layout: its own and the comma after it. */
export function laidOutLength(length: number): number {
  return length + 1;
}

/** Writes the first `length` bytes of `source` into `area` at `at`, with the comma after them; the event's view. */
export function layOut(area: Buffer, at: number, source: Uint8Array, length: number): ItemsJson {
  area.set(source.subarray(0, length), at);
  area[at + length] = COMMA;
  return area.subarray(at, at + length) as ItemsJson;
}

/** An event in an allocation of its own: nothing follows it there, so it needs no comma. */
export function layOutAlone(source: Uint8Array, length: number): ItemsJson {
  return Buffer.from(source.subarray(0, length)) as ItemsJson;
}

/** The bytes [start, end) of a buffer filled by `layOut` (a decode worker's batch, once transferred). */
export function itemsAt(buffer: ArrayBufferLike | Buffer, start: number, end: number): ItemsJson {
  return (Buffer.isBuffer(buffer) ? buffer.subarray(start, end) : Buffer.from(buffer, start, end - start)) as ItemsJson;
}

/** Whether an event starting at `nextStart` of `buffer` continues the run ending at `end` there, so both are sent as one piece. */
export function continuesItems(buffer: Buffer, end: number, nextStart: number): boolean {
  return nextStart === end + 1 && buffer[end] === COMMA;
}
