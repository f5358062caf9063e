/**
 * The conversations the benchmark serves, generated once into bench/data in the reference
 * on-disk layout (docs/reference-behaviour.md, "On-disk layout") and reused while their marker matches. The marker
 * is written last, so a generation that was interrupted is never mistaken for a finished one.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_LARGE_PAYLOAD_BYTES, generateConversation, parseNaiveTimestamp, writeConversation } from '../../src/fixture';

/** Bump when the data written here changes shape, so old bench/data is regenerated. */
const BENCH_DATA_VERSION = 1;

export interface DatasetSpec {
  /** Short name used in the report: `10k`, `100k`, `small`. */
  readonly label: string;
  readonly events: number;
  readonly seed: string;
}

/** What the scenarios need to know of a conversation, read off the generated events. */
export interface DatasetFacts {
  /** An event 150 from the end: as a `page_id` it gives a full page that still has a next one. */
  readonly deepPageId: string;
  /** A window of about 20 events in the middle of the conversation, as stored naive timestamps. */
  readonly windowGte: string;
  readonly windowLt: string;
  readonly windowEvents: number;
  /** Timestamp of the last stored event; appended events start after it. */
  readonly lastTimestamp: string;
}

export interface Dataset {
  readonly spec: DatasetSpec;
  readonly conversationIdHex: string;
  /** `<conversations root>/<hex>`. */
  readonly directory: string;
  readonly facts: DatasetFacts;
}

interface Marker {
  readonly version: number;
  readonly events: number;
  readonly seed: string;
  readonly largePayloadBytes: number;
  readonly facts: DatasetFacts;
}

const DEEP_PAGE_FROM_END = 150;
const WINDOW_EVENTS = 20;

/** A fixed, readable conversation id per size, so reruns find the same directory. */
export function conversationHexFor(spec: DatasetSpec): string {
  return `be7cda7a${String(spec.events).padStart(24, '0')}`;
}

/**
 * The dataset for `spec` under `conversationsRoot`, generating it when the marker in
 * `markersDirectory` is missing or stale, or the number of event files is not the expected
 * one (an interrupted append leaves extra files). `progress` hears about generation.
 */
export function ensureDataset(spec: DatasetSpec, conversationsRoot: string, markersDirectory: string, progress: (line: string) => void): Dataset {
  const conversationIdHex = conversationHexFor(spec);
  const directory = path.join(conversationsRoot, conversationIdHex);
  const markerFile = path.join(markersDirectory, `${conversationIdHex}.json`);
  const reusable = readMarker(markerFile, spec);
  if (reusable && countEventFiles(directory) === spec.events) {
    return { spec, conversationIdHex, directory, facts: reusable.facts };
  }
  progress(`generating the ${spec.label} conversation (${spec.events} events)...`);
  const started = performance.now();
  const events = generateConversation({ events: spec.events, seed: spec.seed, largePayloadBytes: DEFAULT_LARGE_PAYLOAD_BYTES });
  writeConversation(conversationsRoot, conversationIdHex, events);
  const facts = factsOf(events);
  const marker: Marker = { version: BENCH_DATA_VERSION, events: spec.events, seed: spec.seed, largePayloadBytes: DEFAULT_LARGE_PAYLOAD_BYTES, facts };
  mkdirSync(markersDirectory, { recursive: true });
  writeFileSync(markerFile, `${JSON.stringify(marker, null, 2)}\n`);
  progress(`  written in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { spec, conversationIdHex, directory, facts };
}

function readMarker(file: string, spec: DatasetSpec): Marker | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const marker = JSON.parse(readFileSync(file, 'utf8')) as Marker;
    const matches =
      marker.version === BENCH_DATA_VERSION &&
      marker.events === spec.events &&
      marker.seed === spec.seed &&
      marker.largePayloadBytes === DEFAULT_LARGE_PAYLOAD_BYTES;
    return matches ? marker : undefined;
  } catch {
    return undefined;
  }
}

function countEventFiles(directory: string): number {
  try {
    return readdirSync(path.join(directory, 'events')).length;
  } catch {
    return -1;
  }
}

interface StampedEvent {
  readonly id?: string;
  readonly timestamp?: string;
}

// The generator's timestamps never decrease, so stored order is search order.
export function factsOf(events: readonly StampedEvent[]): DatasetFacts {
  const at = (index: number): StampedEvent => {
    const event = events[index];
    if (!event?.id || !event.timestamp) throw new Error(`Generated event ${index} has no id or timestamp; the benchmark needs both.`);
    return event;
  };
  const middle = Math.floor(events.length / 2);
  const windowGte = at(middle).timestamp!;
  const windowLt = at(Math.min(middle + WINDOW_EVENTS, events.length - 1)).timestamp!;
  return {
    deepPageId: at(Math.max(0, events.length - DEEP_PAGE_FROM_END)).id!,
    windowGte,
    windowLt,
    windowEvents: countInWindow(events, windowGte, windowLt),
    lastTimestamp: at(events.length - 1).timestamp!,
  };
}

function countInWindow(events: readonly StampedEvent[], gte: string, lt: string): number {
  const from = parseNaiveTimestamp(gte);
  const to = parseNaiveTimestamp(lt);
  return events.filter((event) => {
    const micros = event.timestamp === undefined ? undefined : parseNaiveTimestamp(event.timestamp);
    return micros !== undefined && micros >= from && micros < to;
  }).length;
}

/**
 * Sum of the sizes of every file below `directory`, like `du --apparent-size -b`.
 * Synchronous: it runs between measurements, and 100k awaited lstat calls take seconds.
 */
export function sizeOnDisk(directory: string): number {
  let total = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const entryPath = path.join(directory, entry.name);
    total += entry.isDirectory() ? sizeOnDisk(entryPath) : lstatSync(entryPath).size;
  }
  return total;
}

/**
 * Ids of `count` events spread evenly over the conversation, each with at least 200 events
 * after it, read off the file names (stored order is search order here).
 */
export function spreadEventIds(dataset: Dataset, count: number): string[] {
  const names = readdirSync(path.join(dataset.directory, 'events')).sort();
  const usable = Math.max(1, names.length - 200);
  return Array.from({ length: count }, (_, i) => /^event-\d+-(.+)\.json$/.exec(names[Math.floor((i * usable) / count)]!)![1]!);
}
