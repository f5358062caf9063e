/**
 * The soak's data: a fresh temporary conversations directory in the reference layout,
 * filled by the fixture generator, and what the writer needs to append after each
 * conversation's last event (its next file index and last timestamp).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateConversation, parseNaiveTimestamp, writeConversation } from '../../src/fixture';

export interface SoakConversation {
  /** Hyphenated, as clients send it. */
  id: string;
  /** The conversation's `events/` directory. */
  eventsDirectory: string;
  initialEvents: number;
  /** Index the next appended file takes. */
  nextIndex: number;
  /** Timestamp of the last event, in naive microseconds. */
  lastMicros: number;
}

export interface SoakDataset {
  root: string;
  conversations: SoakConversation[];
  remove(): void;
}

/** Conversation ids readable by their number: `50a40000-0000-4000-8000-00000000000N`. */
export function soakConversationId(n: number): string {
  return `50a40000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

/** Writes `conversations` generated conversations of `eventsEach` events into a new temporary directory. */
export function createSoakDataset(conversations: number, eventsEach: number): SoakDataset {
  const root = mkdtempSync(path.join(os.tmpdir(), 'agent-server-soak-'));
  const created = Array.from({ length: conversations }, (_, n): SoakConversation => {
    const id = soakConversationId(n + 1);
    // Small tool outputs keep pages near typical sizes; the soak is about concurrency, not bytes.
    const events = generateConversation({ events: eventsEach, seed: `soak-${n + 1}`, largePayloadBytes: 4000 });
    const written = writeConversation(root, id, events);
    const last = events[events.length - 1]?.timestamp;
    return {
      id,
      eventsDirectory: path.join(written.directory, 'events'),
      initialEvents: events.length,
      nextIndex: events.length,
      lastMicros: last === undefined ? parseNaiveTimestamp('2026-06-16T05:39:48') : parseNaiveTimestamp(last),
    };
  });
  return { root, conversations: created, remove: () => rmSync(root, { recursive: true, force: true }) };
}
