import type { EventPage } from '../contract';
import { SerializedJson } from './operations';

const ITEMS_PLACEHOLDER = '"items":[]';
const COMMA = 0x2c;

/**
 * The response body of a page, as the pieces to write one after another, built from the
 * stored events' own JSON bytes so that items are served exactly as stored and never
 * re-serialized. The frame around them is an `EventPage` value, so a change to `EventPage`
 * in the contract fails to compile here, where the body is built.
 *
 * The store keeps events in file order with a comma after each (payload-slab.ts,
 * packed-batch.ts), so a run of consecutive events is already `a,b,c` in memory: it is
 * sent as one view of those bytes, not copied. A first page is one or two such runs.
 */
export function eventPageBody(storedEvents: readonly Buffer[], nextPageId: string | null): SerializedJson<EventPage> {
  const frame: EventPage = { items: [], next_page_id: nextPageId };
  const json = JSON.stringify(frame);
  const at = json.indexOf(ITEMS_PLACEHOLDER) + ITEMS_PLACEHOLDER.length - 1;
  const parts: Buffer[] = [Buffer.from(json.slice(0, at))];
  // The run being gathered: it starts where `first` does and is `length` bytes long, in `memory`.
  let first: Buffer | undefined;
  let memory: Uint8Array | undefined;
  let length = 0;
  for (const event of storedEvents) {
    if (first && memory && followsWithComma(memory, first, length, event)) {
      length += 1 + event.length;
      continue;
    }
    if (first) parts.push(runOf(first, length), SEPARATOR);
    first = event;
    memory = memory?.buffer === event.buffer ? memory : new Uint8Array(event.buffer);
    length = event.length;
  }
  if (first) parts.push(runOf(first, length));
  parts.push(Buffer.from(json.slice(at)));
  return new SerializedJson(parts);
}

const SEPARATOR = Buffer.from(',');

/** Whether `next` starts right after the run and a comma, in the same memory. */
function followsWithComma(memory: Uint8Array, first: Buffer, length: number, next: Buffer): boolean {
  const commaAt = first.byteOffset + length;
  return next.buffer === memory.buffer && next.byteOffset === commaAt + 1 && memory[commaAt] === COMMA;
}

function runOf(first: Buffer, length: number): Buffer {
  return length === first.length ? first : Buffer.from(first.buffer, first.byteOffset, length);
}
