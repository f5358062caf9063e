/**
 * Many small conversations, as a server holding an agent fleet's history sees them: the
 * first request to each, one after another, then random requests across all of them,
 * with the server's memory read all along. Run once with a memory budget (the target)
 * and for the scaling table without one. Every answer is checked against the files: a
 * page asked for at a random event must list exactly the 20 events from it on.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { DEFAULT_LARGE_PAYLOAD_BYTES, generateConversation, writeConversation } from '../../src/fixture';
import { type ProcessMemory, processMemory } from '../process/server-process';
import { sizeOnDisk } from './datasets';
import { keepAliveAgent, parseEventPage, timedGet } from './http-get';
import { percentile } from './load';
import { searchPath } from './scenarios';
import { type ServerProcess, processCpuMs, waitUntilAnswering } from './server-process';

export interface ManyConversationsSpec {
  readonly count: number;
  readonly eventsEach: number;
}

export interface ManyConversationsData {
  readonly spec: ManyConversationsSpec;
  readonly root: string;
  /** Per conversation (by hex), its event ids in search order, read off the file names. */
  readonly ids: ReadonlyMap<string, readonly string[]>;
  readonly diskBytes: number;
}

export interface ManyConversationsFigures {
  readonly data: { count: number; eventsEach: number; diskBytes: number };
  readonly budgetMiB: number | undefined;
  readonly idleMemory: ProcessMemory;
  /** The first request to each conversation, one after another. */
  readonly firstRequests: { totalMs: number; p50Ms: number; maxMs: number; cpuMsEach: number };
  readonly afterFirstRequests: ProcessMemory;
  /** Random pages across all conversations; undefined when not measured. */
  readonly random: { requests: number; clients: number; p50Ms: number; p99Ms: number; maxMs: number; cpuMsEach: number } | undefined;
  /** Answers that were not what the files say (wrong items or cursor, or not 200): should be 0. */
  readonly wrongAnswers: number;
  readonly peakResidentBytes: number;
  /** What /health said at the end. */
  readonly health: { conversationsLoaded: number; bytesHeld: number; conversationsDropped: number };
}

const PAGE = 20;
const DATA_VERSION = 1;

export function manyConversationHex(index: number): string {
  return `3a11e000${String(index).padStart(24, '0')}`;
}

/** Generates the conversations under `root` unless a marker says they are there. */
export function ensureManyConversations(spec: ManyConversationsSpec, root: string, progress: (line: string) => void): ManyConversationsData {
  const marker = path.join(root, `marker-${spec.count}x${spec.eventsEach}.json`);
  const expected = JSON.stringify({ version: DATA_VERSION, ...spec, largePayloadBytes: DEFAULT_LARGE_PAYLOAD_BYTES });
  const conversations = path.join(root, 'conversations');
  if (!existsSync(marker) || readFileSync(marker, 'utf8') !== expected) {
    progress(`generating ${spec.count} conversations of ${spec.eventsEach} events...`);
    const started = performance.now();
    mkdirSync(conversations, { recursive: true });
    for (let i = 0; i < spec.count; i++) {
      const events = generateConversation({ events: spec.eventsEach, seed: `many-${i}`, largePayloadBytes: DEFAULT_LARGE_PAYLOAD_BYTES });
      writeConversation(conversations, manyConversationHex(i), events);
    }
    writeFileSync(marker, expected);
    progress(`  written in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const ids = new Map<string, string[]>();
  let diskBytes = 0;
  for (let i = 0; i < spec.count; i++) {
    const hex = manyConversationHex(i);
    // The generator's timestamps never decrease, so file order is search order.
    const names = readdirSync(path.join(conversations, hex, 'events')).sort();
    ids.set(
      hex,
      names.map((name) => /^event-\d+-(.+)\.json$/.exec(name)![1]!),
    );
    diskBytes += sizeOnDisk(path.join(conversations, hex));
  }
  return { spec, root: conversations, ids, diskBytes };
}

export interface ManyConversationsRun {
  /** Conversations asked for: the first `count` of the data. */
  readonly count: number;
  readonly budgetMiB: number | undefined;
  readonly randomClients: number;
  readonly randomSeconds: number;
}

/** Measures a server spawned just now over `data.root`. */
export async function measureManyConversations(
  server: ServerProcess,
  data: ManyConversationsData,
  run: ManyConversationsRun,
): Promise<ManyConversationsFigures> {
  await waitUntilAnswering(server);
  const idleMemory = processMemory(server.pid);
  const hexes = [...data.ids.keys()].slice(0, run.count);
  let wrongAnswers = 0;
  let peakResidentBytes = idleMemory.peakResidentBytes;
  const sampleMemory = () => {
    peakResidentBytes = Math.max(peakResidentBytes, processMemory(server.pid).peakResidentBytes);
  };

  const agent = keepAliveAgent();
  const first: number[] = [];
  const firstStarted = performance.now();
  // The server's own CPU time: on a machine shared with other work, the figure that says what it would take alone.
  const firstCpuBefore = processCpuMs(server.pid);
  for (const hex of hexes) {
    const answer = await askPage(server, data, hex, 0, agent);
    first.push(answer.elapsedMs);
    if (!answer.right) wrongAnswers++;
  }
  const firstTotalMs = performance.now() - firstStarted;
  const firstCpuMs = processCpuMs(server.pid) - firstCpuBefore;
  const afterFirstRequests = processMemory(server.pid);
  sampleMemory();

  let random: ManyConversationsFigures['random'];
  if (run.randomSeconds > 0) {
    const latencies: number[] = [];
    const deadline = performance.now() + run.randomSeconds * 1000;
    let seed = 12345;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const memoryTimer = setInterval(sampleMemory, 100);
    const randomCpuBefore = processCpuMs(server.pid);
    await Promise.all(
      Array.from({ length: run.randomClients }, async () => {
        const clientAgent = keepAliveAgent();
        while (performance.now() < deadline) {
          const hex = hexes[next() % hexes.length]!;
          const answer = await askPage(server, data, hex, next() % data.spec.eventsEach, clientAgent);
          latencies.push(answer.elapsedMs);
          if (!answer.right) wrongAnswers++;
        }
        clientAgent.destroy();
      }),
    );
    clearInterval(memoryTimer);
    const randomCpuMs = processCpuMs(server.pid) - randomCpuBefore;
    latencies.sort((a, b) => a - b);
    random = {
      requests: latencies.length,
      clients: run.randomClients,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      maxMs: latencies[latencies.length - 1] ?? 0,
      cpuMsEach: randomCpuMs / Math.max(1, latencies.length),
    };
  }
  sampleMemory();
  const health = JSON.parse((await timedGet(`${server.baseUrl}/health`, agent)).body.toString('utf8')) as Record<string, number>;
  agent.destroy();
  first.sort((a, b) => a - b);
  return {
    data: { count: run.count, eventsEach: data.spec.eventsEach, diskBytes: Math.round((data.diskBytes * run.count) / data.spec.count) },
    budgetMiB: run.budgetMiB,
    idleMemory,
    firstRequests: {
      totalMs: firstTotalMs,
      p50Ms: percentile(first, 0.5),
      maxMs: first[first.length - 1] ?? 0,
      cpuMsEach: firstCpuMs / Math.max(1, first.length),
    },
    afterFirstRequests,
    random,
    wrongAnswers,
    peakResidentBytes,
    health: {
      conversationsLoaded: health['conversations_loaded'] ?? -1,
      bytesHeld: health['bytes_held'] ?? -1,
      conversationsDropped: health['conversations_dropped'] ?? -1,
    },
  };
}

/** Asks for the page of PAGE events starting at event `from`, and checks it against the files. */
async function askPage(
  server: ServerProcess,
  data: ManyConversationsData,
  hex: string,
  from: number,
  agent: http.Agent,
): Promise<{ elapsedMs: number; right: boolean }> {
  const ids = data.ids.get(hex)!;
  const query: Record<string, string> = { limit: String(PAGE) };
  if (from > 0) query['page_id'] = ids[from]!;
  const response = await timedGet(server.baseUrl + searchPath(hex, query), agent);
  if (response.status !== 200) return { elapsedMs: response.elapsedMs, right: false };
  const page = parseEventPage(response.body);
  const want = ids.slice(from, from + PAGE);
  const right =
    page.items.length === want.length && page.items.every((item, i) => item.id === want[i]) && page.next_page_id === (ids[from + PAGE] ?? null);
  return { elapsedMs: response.elapsedMs, right };
}
