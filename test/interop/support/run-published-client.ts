import { execFile } from 'node:child_process';
import path from 'node:path';
import type { Event, EventPage } from '../../../src/contract';

export interface PublishedClientPlan {
  baseUrl: string;
  apiKey?: string;
  conversationId: string;
  searches: Record<string, string | number>[];
  counts: Record<string, string>[];
  eventIds: string[];
  batch: string[];
}

export interface PublishedClientOutcome {
  searches: EventPage[];
  counts: number[];
  events: Event[];
  batch: (Event | null)[];
  all: Event[];
}

const SCRIPT = path.join(__dirname, 'published-client.mjs');

/** Runs the published client's calls of the plan in a child Node process; rejects with its stderr when it fails. No time limit: a busy machine makes it slower, not failed (jest's hang guard applies). */
export function runPublishedClient(plan: PublishedClientPlan): Promise<PublishedClientOutcome> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [SCRIPT, JSON.stringify(plan)], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the published client failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as PublishedClientOutcome);
    });
  });
}

/** The calls the interop tests make: several searches and counts drawn from the conversation, three ids, a batch with an unknown id. */
export function planFor(baseUrl: string, conversationId: string, all: readonly Event[]): PublishedClientPlan {
  const middle = all[Math.floor(all.length / 2)]!;
  const word = firstWord(all);
  return {
    baseUrl,
    conversationId,
    searches: [
      {},
      { kind: 'MessageEvent' },
      { source: 'agent', limit: 7 },
      { sort_order: 'TIMESTAMP_DESC', limit: 5 },
      { timestamp__gte: middle.timestamp!, limit: 20 },
      ...(word ? [{ body: word }] : []),
    ],
    counts: [
      {},
      { kind: 'ActionEvent' },
      { source: 'user' },
      { timestamp__lt: middle.timestamp! },
      ...(word ? [{ body: word, kind: 'MessageEvent' }] : []),
    ],
    eventIds: [all[0]!.id!, middle.id!, all[all.length - 1]!.id!],
    batch: [all[1]!.id!, 'no-such-event', all[2]!.id!],
  };
}

function firstWord(all: readonly Event[]): string | undefined {
  for (const event of all) {
    if (event.kind !== 'MessageEvent') continue;
    const text = event.llm_message.content?.map((part) => (typeof part['text'] === 'string' ? part['text'] : '')).join(' ') ?? '';
    const word = /[A-Za-z]{5,}/.exec(text)?.[0];
    if (word) return word;
  }
  return undefined;
}
