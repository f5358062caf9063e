/**
 * Turns one event file's bytes into what the index keeps: the bytes the server serves
 * verbatim, and the few fields the search needs. The parsed object is dropped here, so
 * memory holds each event once, as bytes. Runs on whichever thread decodes
 * (directory/load/workers/worker.ts or the main thread for small loads); it holds no state of its own.
 * What is served of a stored event is decided by stored-event/decide.ts.
 */
import type { Event } from '../../contract';
import { DEFAULT_SOURCE, type IndexedEvent, searchableText, storedTimestampMicros } from '../../search';
import type { EventFileName } from '../directory/load/event-file-name';
import { decodeStoredEvent, type StoredEventMode } from './decide';

/**
 * What became of a file. `event.payload` is a view of the input (trimmed) or new bytes:
 * the caller copies it to wherever payloads are kept and puts the copy in its place.
 * `unlisted` names the properties the contract does not list, joined with commas
 * (undefined when there are none).
 */
export type DecodedEvent =
  | { ok: true; event: IndexedEvent<Buffer>; unlisted: string | undefined }
  | { ok: false; because: 'unknown-kind' | 'unknown-value' | 'broken'; reason: string };

export function decodeEventFile(bytes: Buffer, file: EventFileName, mode: StoredEventMode): DecodedEvent {
  const decision = decodeStoredEvent(bytes, mode);
  if (!decision.served) {
    const reason = decision.because === 'unknown-kind' ? decision.kind : decision.because === 'unknown-value' ? decision.value : decision.reason;
    return { ok: false, because: decision.because, reason };
  }
  const unlisted = decision.unlisted.length === 0 ? undefined : decision.unlisted.join(',');
  return { ok: true, event: indexedEvent(decision.event, file, decision.payload), unlisted };
}

/** Every index entry is built with this literal's shape (directory/load/workers/batch-transfer.ts too), so they share one hidden class. */
function indexedEvent(event: Event, file: EventFileName, payload: Buffer): IndexedEvent<Buffer> {
  return {
    // The contract makes `id` optional; the file name always carries one.
    id: event.id ?? file.id,
    kind: event.kind,
    source: event.source ?? DEFAULT_SOURCE[event.kind],
    micros: storedTimestampMicros(event.timestamp),
    position: file.position,
    text: searchableText(event),
    payload,
  };
}
