/**
 * Live delivery: many readers of one conversation while events are appended at a steady
 * rate, once over the events socket and once by polling the search as the viewer polled it
 * (every 500 ms, from the last event seen). Measured per event and reader: the time from
 * the event file being written to the reader holding the event; and the server's CPU over
 * the append window. Readers and the appender share this process's clock. With a database,
 * the server reads PostgreSQL filled by a following ingester (`npm run ingest -- --follow`),
 * so the time includes the ingester's look at the directory.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import type { Event } from '../../src/contract';
import { eventFileName, serializeEvent, writeConversation } from '../../src/fixture/layout';
import { createMemoryLogger } from '../../src/log';
import { spawnScript } from '../process/server-process';
import { createPool } from '../../src/store/postgres/connection';
import { migrate } from '../../src/store/postgres/migrations';
import { processCpuMs, spawnOurServer, waitUntilAnswering, withServer } from './server-process';

export interface LiveDeliveryOptions {
  repoRoot: string;
  dataDirectory: string;
  readers: number;
  eventsPerSecond: number;
  seconds: number;
  /** The polling readers' interval. */
  pollMs: number;
  /** Serve this PostgreSQL database, filled by a following ingester, instead of the directory. */
  databaseUrl?: string;
}

export interface LiveDeliveryResult {
  mode: 'socket' | 'polling';
  readers: number;
  eventsPerSecond: number;
  seconds: number;
  /** Event deliveries seen, out of events appended times readers. */
  delivered: number;
  expected: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The server's CPU time over the append window, as a share of one core. */
  serverCpuPercent: number;
  /** Requests the readers sent (polling) or frames they received (socket). */
  messages: number;
}

const CONVERSATION_ID = 'b1e0c0de-0000-4000-8000-00000000a11e';
/** After the last append, how long the readers are given to catch up. */
const DRAIN_MS = 3000;
/** Appends are written in this many batches a second. */
const BATCHES_PER_SECOND = 20;

export const DEFAULT_LIVE_DELIVERY = { readers: 100, eventsPerSecond: 200, seconds: 10, pollMs: 500 } as const;

export async function measureLiveDelivery(options: LiveDeliveryOptions, progress: (line: string) => void): Promise<LiveDeliveryResult[]> {
  const results: LiveDeliveryResult[] = [];
  for (const mode of ['socket', 'polling'] as const) {
    progress(`live delivery: ${options.readers} readers by ${mode}, ${options.eventsPerSecond} events/s for ${options.seconds} s`);
    results.push(await measureMode(mode, options));
  }
  return results;
}

function eventNumbered(n: number): Event {
  const at = new Date(Date.UTC(2026, 10, 25, 10, 0, 0) + n * 5);
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    timestamp: at.toISOString().replace('Z', '000'),
    source: 'agent',
    llm_message: { role: 'assistant', content: [{ type: 'text', text: `Step ${n}: the agent reports progress on the task at hand.` }] },
    kind: 'MessageEvent',
  } as Event;
}

async function measureMode(mode: 'socket' | 'polling', options: LiveDeliveryOptions): Promise<LiveDeliveryResult> {
  const root = path.join(options.dataDirectory, `live-${mode}`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const first = eventNumbered(0);
  const { directory } = writeConversation(root, CONVERSATION_ID, [first]);
  const logFile = path.join(options.dataDirectory, 'logs', `live-${mode}.log`);
  mkdirSync(path.dirname(logFile), { recursive: true });
  const ingester = options.databaseUrl === undefined ? undefined : await followingIngester(options.databaseUrl, root, logFile);
  try {
    return await withServer(
      spawnOurServer(`live ${mode}`, {
        repoRoot: options.repoRoot,
        conversationsRoot: options.databaseUrl === undefined ? root : undefined,
        validateResponses: false,
        nodeFlags: [],
        logFile,
        // The reference closes a conversation's 51st socket; the bench asks for more.
        serverArgs: [
          '--max-sockets-per-conversation',
          String(options.readers),
          ...(options.databaseUrl === undefined ? [] : ['--database-url', options.databaseUrl]),
        ],
      }),
      async (server) => {
        await waitUntilAnswering(server, `/api/conversations/${CONVERSATION_ID}/events/count`);
        const writtenAt = new Map<string, number>();
        const latencies: number[] = [];
        let messages = 0;
        const seen = (id: string) => {
          const written = writtenAt.get(id);
          if (written !== undefined) latencies.push(performance.now() - written);
        };
        const readers =
          mode === 'socket'
            ? await socketReaders(server.baseUrl, options.readers, seen, () => messages++)
            : pollingReaders(server.baseUrl, options, first.id as string, seen, () => messages++);
        const total = options.eventsPerSecond * options.seconds;
        const perBatch = Math.ceil(options.eventsPerSecond / BATCHES_PER_SECOND);
        const cpuBefore = processCpuMs(server.pid);
        const started = performance.now();
        for (let n = 1; n <= total; ) {
          const due = started + ((n - 1) / options.eventsPerSecond) * 1000;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          for (let k = 0; k < perBatch && n <= total; k++, n++) {
            const event = eventNumbered(n);
            writeFileSync(path.join(directory, 'events', eventFileName(n, event.id as string)), serializeEvent(event));
            writtenAt.set(event.id as string, performance.now());
          }
        }
        const window = performance.now() - started;
        const cpu = processCpuMs(server.pid) - cpuBefore;
        await new Promise((resolve) => setTimeout(resolve, DRAIN_MS));
        readers.stop();
        latencies.sort((a, b) => a - b);
        const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
        return {
          mode,
          readers: options.readers,
          eventsPerSecond: options.eventsPerSecond,
          seconds: options.seconds,
          delivered: latencies.length,
          expected: total * options.readers,
          p50Ms: at(0.5),
          p99Ms: at(0.99),
          maxMs: latencies.at(-1) ?? Number.NaN,
          serverCpuPercent: (cpu / window) * 100,
          messages,
        };
      },
    );
  } finally {
    await ingester?.stop(5000);
    rmSync(root, { recursive: true, force: true });
  }
}

/** `npm run ingest -- --follow` of `root`, into a database where the bench's conversation starts empty. */
async function followingIngester(databaseUrl: string, root: string, logFile: string): Promise<{ stop(graceMs: number): Promise<unknown> }> {
  const pool = createPool(databaseUrl, createMemoryLogger());
  try {
    await migrate(pool);
    await pool.query('DELETE FROM conversations WHERE hex = $1', [CONVERSATION_ID.replaceAll('-', '')]);
  } finally {
    await pool.end();
  }
  return spawnScript('src/cli/ingest.ts', ['--conversations-path', root, '--database-url', databaseUrl, '--follow'], {
    label: 'ingest',
    logFile: logFile.replace(/\.log$/, '-ingest.log'),
  });
}

async function socketReaders(baseUrl: string, count: number, seen: (id: string) => void, counted: () => void): Promise<{ stop(): void }> {
  const url = `${baseUrl.replace(/^http/, 'ws')}/sockets/events/${CONVERSATION_ID}`;
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<WebSocket>((resolve, reject) => {
          const socket = new WebSocket(url);
          // The first frame (the state) says the socket is subscribed.
          socket.once('message', () => resolve(socket));
          socket.once('error', reject);
          socket.once('close', (code, reason) => reject(new Error(`a reader's socket closed ${code} ${String(reason)}`)));
        }),
    ),
  );
  for (const socket of sockets) {
    const held = new Set<string>();
    socket.on('message', (data) => {
      counted();
      const id = (JSON.parse(String(data)) as { id?: string }).id;
      if (id && !held.has(id)) {
        held.add(id);
        seen(id);
      }
    });
  }
  return {
    stop: () => {
      for (const socket of sockets) socket.terminate();
    },
  };
}

function pollingReaders(
  baseUrl: string,
  options: LiveDeliveryOptions,
  firstId: string,
  seen: (id: string) => void,
  counted: () => void,
): { stop(): void } {
  let stopped = false;
  const reader = async (offset: number) => {
    let last = firstId;
    // The page starts at the last event seen (inclusive): each reader counts an event once.
    const held = new Set<string>([firstId]);
    await new Promise((resolve) => setTimeout(resolve, offset));
    while (!stopped) {
      const asked = performance.now();
      try {
        const response = await fetch(`${baseUrl}/api/conversations/${CONVERSATION_ID}/events/search?limit=100&page_id=${last}`);
        counted();
        const page = (await response.json()) as { items: { id: string }[] };
        for (const item of page.items) {
          if (held.has(item.id)) continue;
          held.add(item.id);
          seen(item.id);
        }
        last = page.items.at(-1)?.id ?? last;
      } catch {
        // The server stopping ends the run.
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, options.pollMs - (performance.now() - asked))));
    }
  };
  for (let i = 0; i < options.readers; i++) void reader((i * options.pollMs) / options.readers);
  return {
    stop: () => {
      stopped = true;
    },
  };
}

export function renderLiveDelivery(results: readonly LiveDeliveryResult[], when: Date, store: 'directory' | 'postgres' = 'directory'): string {
  const rows = results.map(
    (result) =>
      `| ${result.mode} | ${result.readers} | ${result.eventsPerSecond}/s for ${result.seconds} s | ${result.delivered} of ${result.expected} | ${result.p50Ms.toFixed(0)} | ${result.p99Ms.toFixed(0)} | ${result.maxMs.toFixed(0)} | ${result.serverCpuPercent.toFixed(0)}% | ${result.messages} |`,
  );
  return [
    `## Live delivery${store === 'postgres' ? ' from PostgreSQL' : ''}, ${when.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    ...(store === 'postgres'
      ? [
          'The server reads a PostgreSQL database (durable throwaway cluster) that `npm run ingest -- --follow` fills from the directory the events are written to: the latency includes the ingester finding and copying each file.',
          '',
        ]
      : []),
    'One conversation, readers following it while events are appended (a file each). Latency: from the file written to the reader holding the event (the first-seen copy per reader; polling readers ask every 500 ms from the last event seen, the previous viewer). CPU: the server process over the append window, share of one core.',
    '',
    '| reader | readers | appends | deliveries | p50 ms | p99 ms | max ms | server CPU | frames or requests |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
