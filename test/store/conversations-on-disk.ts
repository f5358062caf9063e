/**
 * Real conversations directories for the store's tests: a fresh temporary root per test,
 * events written as the reference writes them (compact JSON, one file per event).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Event } from '../../src/contract';
import { createMemoryLogger } from '../../src/log';
import { createDirectoryStore, type DirectoryStoreOptions, type DirectoryEventStore } from '../../src/store';

export const CONVERSATION = '8f1a2b3c4d5e4f708192a3b4c5d6e7f8';
export const OTHER_CONVERSATION = '0b573a33df994537b2f66c2ad5baae62';

export interface StoreUnderTest {
  root: string;
  store: DirectoryEventStore;
  logs: string[];
  /** The parsed log lines at `level` whose message is `message`. */
  logged(level: 'info' | 'warn' | 'error', message?: string): Record<string, unknown>[];
  cleanUp(): Promise<void>;
}

/** A temporary conversations directory with a store over it; `cleanUp` closes the store and deletes the directory. */
export function storeOverTemporaryRoot(options: Omit<DirectoryStoreOptions, 'logger'> = {}): StoreUnderTest {
  const root = mkdtempSync(path.join(os.tmpdir(), 'event-store-test-'));
  const logger = createMemoryLogger();
  const store = createDirectoryStore(root, { logger, ...options });
  return {
    root,
    store,
    logs: logger.lines,
    logged: (level, message) =>
      logger.lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry['level'] === level && (message === undefined || entry['message'] === message)),
    async cleanUp() {
      await store.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Creates `<root>/<hex>/` with `meta.json`, `base_state.json` and an `events/` directory; returns the events directory. */
export function createConversation(root: string, hex: string = CONVERSATION): string {
  const events = path.join(root, hex, 'events');
  mkdirSync(events, { recursive: true });
  writeFileSync(path.join(root, hex, 'meta.json'), '{}');
  writeFileSync(path.join(root, hex, 'base_state.json'), '{}');
  return events;
}

/** The reference's file name for the event at `index`. */
export function eventFileName(index: number, id: string): string {
  return `event-${String(index).padStart(5, '0')}-${id}.json`;
}

/** Writes an event as compact JSON under its reference file name; returns the file's path. */
export function writeEvent(eventsDirectory: string, index: number, event: Event & { id: string }): string {
  const file = path.join(eventsDirectory, eventFileName(index, event.id));
  writeFileSync(file, JSON.stringify(event));
  return file;
}

/** A user message; `n` makes its id and text unique. */
export function userMessage(n: number, timestamp = `2026-06-16T05:39:${String(10 + (n % 50)).padStart(2, '0')}.000001`): Event & { id: string } {
  return {
    id: `0b573a33-df99-4537-b2f6-${String(n).padStart(12, '0')}`,
    timestamp,
    source: 'user',
    kind: 'MessageEvent',
    llm_message: { role: 'user', content: [{ type: 'text', text: `Message number ${n}` }] },
  };
}

/** A pause event (its source defaults to `user`). */
export function pause(n: number, timestamp: string): Event & { id: string } {
  return { id: `94385dfc-12a0-4501-b53d-${String(n).padStart(12, '0')}`, timestamp, kind: 'PauseEvent' };
}
