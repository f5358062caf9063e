import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { conversationNames, locateConversation } from '../open/conversation-location';
import { statIfPresent, versionOf } from './file-version';
import { parseEventFileName, type EventFileName } from '../load/event-file-name';
import { listDirectory } from '../load/event-listing';
import type { StoredConversationSummary } from '../../event-store';

/** Conversations summarised at once: enough to keep the disk busy, few enough to leave the event loop to requests. */
const PARALLEL_SUMMARIES = 8;
/** A last file being written is not JSON yet; the ones before it are tried, this many in all. */
const LAST_FILES_TRIED = 3;

interface CachedSummary {
  /** Modification times of `events/` and `meta.json` when the summary was read. */
  version: string;
  summary: StoredConversationSummary;
}

export class ConversationSummaries {
  private readonly cache = new Map<string, CachedSummary>();

  /** Every conversation directory under `realRoot`, newest last event first, those without events last. */
  async list(realRoot: string): Promise<StoredConversationSummary[]> {
    const names = await conversationNames(realRoot);
    const summaries: StoredConversationSummary[] = [];
    for (let start = 0; start < names.length; start += PARALLEL_SUMMARIES) {
      const batch = await Promise.all(names.slice(start, start + PARALLEL_SUMMARIES).map((hex) => this.summaryOf(realRoot, hex)));
      for (const summary of batch) if (summary) summaries.push(summary);
    }
    const present = new Set(names);
    for (const hex of this.cache.keys()) if (!present.has(hex)) this.cache.delete(hex);
    return summaries.sort(byRecentActivity);
  }

  private async summaryOf(realRoot: string, hex: string): Promise<StoredConversationSummary | undefined> {
    const location = await locateConversation(realRoot, hex);
    if (!location.found) return undefined;
    const eventsDirectory = path.join(location.directory, 'events');
    const metaFile = path.join(location.directory, 'meta.json');
    const [eventsStats, metaStats] = await Promise.all([statIfPresent(eventsDirectory), statIfPresent(metaFile)]);
    const version = `${location.identity}|${versionOf(eventsStats)}|${versionOf(metaStats)}`;
    const cached = this.cache.get(hex);
    if (cached?.version === version) return cached.summary;

    const files = eventsStats?.isDirectory() ? eventFiles((await listDirectory(eventsDirectory)) ?? []) : [];
    const summary: StoredConversationSummary = {
      hex,
      title: metaStats?.isFile() ? await titleOf(metaFile) : null,
      eventCount: files.length,
      lastEventAt: await lastTimestamp(eventsDirectory, files),
    };
    this.cache.set(hex, { version, summary });
    return summary;
  }
}

function byRecentActivity(a: StoredConversationSummary, b: StoredConversationSummary): number {
  if (a.lastEventAt === b.lastEventAt) return a.hex < b.hex ? -1 : 1;
  if (a.lastEventAt === null) return 1;
  if (b.lastEventAt === null) return -1;
  // Stored timestamps are ISO 8601 written by one server, so their text order is their time order.
  return a.lastEventAt < b.lastEventAt ? 1 : -1;
}

function eventFiles(names: readonly string[]): EventFileName[] {
  const files: EventFileName[] = [];
  for (const name of names) {
    const file = parseEventFileName(name);
    if (file) files.push(file);
  }
  return files.sort((a, b) => a.position - b.position || (a.name < b.name ? -1 : 1));
}

async function lastTimestamp(eventsDirectory: string, files: readonly EventFileName[]): Promise<string | null> {
  for (let index = files.length - 1; index >= Math.max(0, files.length - LAST_FILES_TRIED); index--) {
    const event = await readJson(path.join(eventsDirectory, files[index]!.name));
    const timestamp = (event as { timestamp?: unknown } | undefined)?.timestamp;
    if (typeof timestamp === 'string') return timestamp;
  }
  return null;
}

/** The title `meta.json` records, or null (none, empty, or the file unreadable). */
export async function titleOf(metaFile: string): Promise<string | null> {
  const title = ((await readJson(metaFile)) as { title?: unknown } | undefined)?.title;
  return typeof title === 'string' && title.trim() !== '' ? title : null;
}

/** The file's JSON, or undefined when it is gone, unreadable or not JSON: a summary is best effort. */
async function readJson(file: string): Promise<unknown> {
  try {
    const value: unknown = JSON.parse(await readFile(file, 'utf8'));
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
