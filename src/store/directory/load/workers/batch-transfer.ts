/**
 * A decoded batch as it crosses from a decode worker to the main thread: the served
 * payloads in file order, each followed by a comma, in one ArrayBuffer, which is
 * transferred (moved, not copied) and then serves them where it is, and
 * the index fields as plain columns, which are copied. The main thread's heap receives
 * only what the index keeps, never the parsed events, so loading a conversation leaves it
 * little garbage to collect.
 */
import type { EventKind } from '../../../../contract';
import { type ItemsJson, itemsAt, laidOutLength, layOut } from '../../memory/items-json';
import type { UnservedFile } from '../../memory/unserved-files';
import { isUnserved, type DecodedFile, type DecodedFiles } from '../read-and-decode';

export interface PackedBatch {
  /** Per file: why it is not served (memory/unserved-files.ts), undefined where it is served. */
  because: (UnservedFile['because'] | undefined)[];
  /** Per unserved file: the reason, undefined for a file gone. */
  reasons: (string | undefined)[];
  /** Per served file: the properties the contract does not list, joined with commas. */
  unlisted: (string | undefined)[];
  /**
   * Per file: where its payload ends in `payloads`. Payloads lie in file order, laid out
   * for pages (memory/items-json.ts): the next one starts `laidOutLength` after this one's start.
   */
  payloadEnds: Float64Array;
  payloads: ArrayBuffer;
  /** Per file: the index fields (undefined where the file is not served). NaN stands for no timestamp. */
  ids: (string | undefined)[];
  kinds: (string | undefined)[];
  sources: (string | undefined)[];
  micros: Float64Array;
  positions: Float64Array;
  texts: (string | undefined)[];
}

/** The batch, and what to pass as postMessage's transfer list. */
export function packBatch({ files, unlisted }: DecodedFiles): { batch: PackedBatch; transfer: ArrayBuffer[] } {
  const count = files.length;
  const batch: PackedBatch = {
    because: new Array(count),
    reasons: new Array(count),
    unlisted,
    payloadEnds: new Float64Array(count),
    payloads: new ArrayBuffer(payloadBytes(files)),
    ids: new Array(count),
    kinds: new Array(count),
    sources: new Array(count),
    micros: new Float64Array(count),
    positions: new Float64Array(count),
    texts: new Array(count),
  };
  const payloads = Buffer.from(batch.payloads);
  let start = 0;
  let end = 0;
  for (let i = 0; i < count; i++) {
    const file = files[i]!;
    if (isUnserved(file)) {
      batch.because[i] = file.because;
      if (file.because !== 'gone') batch.reasons[i] = file.reason;
    } else {
      layOut(payloads, start, file.payload, file.payload.length);
      end = start + file.payload.length;
      start += laidOutLength(file.payload.length);
      batch.ids[i] = file.id;
      batch.kinds[i] = file.kind;
      batch.sources[i] = file.source;
      batch.micros[i] = file.micros ?? Number.NaN;
      batch.positions[i] = file.position;
      batch.texts[i] = file.text;
    }
    batch.payloadEnds[i] = end;
  }
  return { batch, transfer: [batch.payloads] };
}

/** The files again, each served one as its index entry, its payload a view of the transferred buffer (no copy). */
export function unpackBatch(batch: PackedBatch): DecodedFiles<ItemsJson> {
  const files: DecodedFile<ItemsJson>[] = new Array(batch.because.length);
  let start = 0;
  for (let i = 0; i < files.length; i++) {
    const end = batch.payloadEnds[i]!;
    const because = batch.because[i];
    if (because === undefined) {
      const micros = batch.micros[i]!;
      const source = batch.sources[i];
      files[i] = {
        id: batch.ids[i]!,
        kind: canonical(batch.kinds[i]!) as EventKind,
        source: source === undefined ? undefined : canonical(source),
        micros: Number.isNaN(micros) ? undefined : micros,
        position: batch.positions[i]!,
        text: batch.texts[i],
        payload: itemsAt(batch.payloads, start, end),
      };
      start += laidOutLength(end - start);
    } else {
      files[i] = because === 'gone' ? { because } : { because, reason: batch.reasons[i]! };
    }
  }
  return { files, unlisted: batch.unlisted.map((names) => (names === undefined ? undefined : canonical(names))) };
}

function payloadBytes(files: readonly DecodedFile[]): number {
  let total = 0;
  for (const file of files) if (!isUnserved(file)) total += laidOutLength(file.payload.length);
  return total;
}

/**
 * One string per distinct kind, source and set of unlisted properties: a copied column
 * holds a fresh string per event, and 100k events would otherwise keep 100k copies of
 * "ObservationEvent". There are a handful of each; the cap only guards against open-ended
 * values.
 */
const CANONICAL_LIMIT = 256;
const canonicalStrings = new Map<string, string>();

function canonical(value: string): string {
  const known = canonicalStrings.get(value);
  if (known !== undefined) return known;
  if (canonicalStrings.size < CANONICAL_LIMIT) canonicalStrings.set(value, value);
  return value;
}
