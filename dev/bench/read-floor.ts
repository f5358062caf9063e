/**
 * The floor under a cold open: how long this process takes just to list a conversation's
 * event files and read them all, and to parse them as JSON as well. Reads are synchronous,
 * one after another: for files in the page cache (as they are after generation, and for
 * the server) that is the cheapest way Node has, cheaper than the thread pool's round trips.
 * No store can open the conversation faster than it can read it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export interface ReadFloorFigures {
  readonly files: number;
  /** List `events/` and read every file. */
  readonly readMs: number;
  /** The same, plus JSON.parse of every file. */
  readonly readAndParseMs: number;
}

/** Reads all event files of the conversation in `directory` twice: once raw, once parsed. */
export function measureReadFloor(directory: string): ReadFloorFigures {
  const eventsDirectory = path.join(directory, 'events');
  const read = timed(() => readAll(eventsDirectory, () => undefined));
  const parsed = timed(() => readAll(eventsDirectory, (bytes) => JSON.parse(bytes.toString('utf8')) as unknown));
  return { files: read.result, readMs: read.ms, readAndParseMs: parsed.ms };
}

/**
 * Reads every event file once, so that the next reads find them in the page cache. The
 * bench does this before each open it times and before measuring the floor (see run.ts).
 */
export function bringIntoPageCache(directory: string): void {
  readAll(path.join(directory, 'events'), () => undefined);
}

function timed<T>(work: () => T): { result: T; ms: number } {
  const started = performance.now();
  const result = work();
  return { result, ms: performance.now() - started };
}

function readAll(eventsDirectory: string, use: (bytes: Buffer) => unknown): number {
  const names = readdirSync(eventsDirectory);
  for (const name of names) use(readFileSync(path.join(eventsDirectory, name)));
  return names.length;
}
