/**
 * Consumers that never read: sockets on one conversation that take the handshake and the
 * first frame, then read nothing more, while events are appended. The server must close
 * each once what is queued for it passes its bound (SOCKET_LIMITS.maxQueuedBytes), keep
 * delivering to a socket that reads, and give the memory back. Measured: the server's
 * resident memory before the appends, at its peak while they run (sampled), and once the
 * stalled sockets are closed; how many the server closed (its log names each); whether the
 * reading socket got every event; whether the server still answers. The same appends with
 * no stalled socket are measured first: the store keeps the appended events in memory, and
 * that run says how much of the figure is theirs.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import WebSocket from 'ws';
import type { Event } from '../../src/contract';
import { eventFileName, serializeEvent, writeConversation } from '../../src/fixture/layout';
import { processMemory } from '../process/server-process';
import { spawnOurServer, waitUntilAnswering, withServer } from './server-process';

export interface StalledReadersOptions {
  repoRoot: string;
  dataDirectory: string;
  /** Sockets that never read after the first frame. */
  stalled: number;
  /** Events appended, and the text each carries (bulky, so the queues fill). */
  events: number;
  eventBytes: number;
  eventsPerSecond: number;
}

export interface StalledReadersResult {
  stalled: number;
  appendedMiB: number;
  /** Stalled sockets the server closed (its log line for each). */
  closedByServer: number;
  /** Events the one reading socket received, of those appended. */
  readerReceived: number;
  appended: number;
  rssBeforeMiB: number;
  rssPeakMiB: number;
  rssAfterMiB: number;
  /** `/alive` answered 200 after the run. */
  serverAnswers: boolean;
}

export const DEFAULT_STALLED_READERS = { stalled: 50, events: 1000, eventBytes: 64 * 1024, eventsPerSecond: 200 } as const;

const CONVERSATION_ID = 'b1e0c0de-0000-4000-8000-00000000057a';
const CUT_OFF_LINE = 'its consumer stopped reading';
const SAMPLE_MS = 100;
/** After the last append: time for the server to close what it will close and to collect its garbage. */
const SETTLE_MS = 5000;
const MIB = 1024 * 1024;

/** The appends with no stalled socket, then with `options.stalled` of them. */
export async function measureStalledReaders(options: StalledReadersOptions, progress: (line: string) => void): Promise<StalledReadersResult[]> {
  return [await measureRun({ ...options, stalled: 0 }, progress), await measureRun(options, progress)];
}

async function measureRun(options: StalledReadersOptions, progress: (line: string) => void): Promise<StalledReadersResult> {
  progress(`stalled readers: ${options.stalled} sockets that never read, ${options.events} events of ${options.eventBytes / 1024} KiB appended`);
  const root = path.join(options.dataDirectory, 'live-stalled');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const { directory } = writeConversation(root, CONVERSATION_ID, [bulkyEvent(0, 16)]);
  const logFile = path.join(options.dataDirectory, 'logs', 'live-stalled.log');
  mkdirSync(path.dirname(logFile), { recursive: true });
  try {
    return await withServer(
      spawnOurServer('stalled readers', {
        repoRoot: options.repoRoot,
        conversationsRoot: root,
        validateResponses: false,
        nodeFlags: [],
        logFile,
        serverArgs: ['--max-sockets-per-conversation', String(options.stalled + 1)],
      }),
      async (server) => {
        await waitUntilAnswering(server);
        const stalled = await Promise.all(Array.from({ length: options.stalled }, () => stalledSocket(server.baseUrl)));
        const reader = await readingSocket(server.baseUrl);
        const rssBefore = processMemory(server.pid).residentBytes;
        let rssPeak = rssBefore;
        const sampler = setInterval(() => {
          rssPeak = Math.max(rssPeak, processMemory(server.pid).residentBytes);
        }, SAMPLE_MS);
        const started = performance.now();
        for (let n = 1; n <= options.events; n++) {
          const wait = started + ((n - 1) / options.eventsPerSecond) * 1000 - performance.now();
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          const event = bulkyEvent(n, options.eventBytes);
          writeFileSync(path.join(directory, 'events', eventFileName(n, event.id as string)), serializeEvent(event));
        }
        await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        clearInterval(sampler);
        const rssAfter = processMemory(server.pid).residentBytes;
        const serverAnswers = (await fetch(`${server.baseUrl}/alive`).catch(() => undefined))?.status === 200;
        for (const socket of stalled) socket.destroy();
        reader.stop();
        return {
          stalled: options.stalled,
          appendedMiB: (options.events * options.eventBytes) / MIB,
          closedByServer: readFileSync(logFile, 'utf8').split(CUT_OFF_LINE).length - 1,
          readerReceived: reader.received(),
          appended: options.events,
          rssBeforeMiB: rssBefore / MIB,
          rssPeakMiB: rssPeak / MIB,
          rssAfterMiB: rssAfter / MIB,
          serverAnswers,
        };
      },
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function bulkyEvent(n: number, bytes: number): Event {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    timestamp: new Date(Date.UTC(2026, 10, 25, 10, 0, 0) + n).toISOString().replace('Z', '000'),
    source: 'agent',
    llm_message: { role: 'assistant', content: [{ type: 'text', text: `Step ${n} `.padEnd(bytes, 'x') }] },
    kind: 'MessageEvent',
  } as Event;
}

/**
 * A socket opened by hand that reads up to its first frame (the state, sent once it is
 * subscribed) and then never again: what the server sends piles up in the kernel's
 * buffers, then in the server's.
 */
function stalledSocket(baseUrl: string): Promise<net.Socket> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      received += String(chunk);
      if (!received.includes('full_state')) return;
      socket.pause();
      resolve(socket);
    });
    socket.once('close', () => reject(new Error('a stalled socket closed before its first frame')));
    socket.write(
      `GET /sockets/events/${CONVERSATION_ID} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
  });
}

async function readingSocket(baseUrl: string): Promise<{ received(): number; stop(): void }> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/sockets/events/${CONVERSATION_ID}`);
  let frames = 0;
  await new Promise<void>((resolve, reject) => {
    socket.once('message', () => resolve());
    socket.once('error', reject);
  });
  socket.on('message', () => frames++);
  return { received: () => frames, stop: () => socket.terminate() };
}

export function renderStalledReaders(results: readonly StalledReadersResult[], when: Date): string {
  const rows = results.map(
    (result) =>
      `| ${result.stalled} | ${result.appended} events, ${result.appendedMiB.toFixed(0)} MiB | ${result.closedByServer} of ${result.stalled} | ${result.readerReceived} of ${result.appended} | ${result.rssBeforeMiB.toFixed(0)} | ${result.rssPeakMiB.toFixed(0)} | ${result.rssAfterMiB.toFixed(0)} | ${result.serverAnswers ? 'yes' : 'no'} |`,
  );
  return [
    `## Consumers that never read, ${when.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    'One conversation with sockets that read their first frame and then nothing, and one socket that reads, while bulky events are appended; the first row is the same run without stalled sockets. The server closes a socket once more than its bound is queued for it. RSS: the server process before the appends, its sampled peak while they run, and after they end and the closed sockets are gone. The directory store keeps the appended events in memory: the run without stalled sockets shows what that costs, the difference is what the stalled sockets cost.',
    '',
    '| stalled sockets | appended | closed by the server | reading socket received | RSS before MiB | peak MiB | after MiB | server answers after |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
