/**
 * SIGTERM and SIGINT on the real CLI (src/cli/start.ts in a child process): the server
 * stops accepting at once, lets the request in flight finish with its whole 200, and exits
 * 0 well within 10 s. The request is kept in flight by a client that reads a 20 MB page
 * only after the signal, so the server is still writing it when the signal arrives.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { EventPage } from '../../src/contract';
import { writeConversation } from '../../src/fixture';
import { type ServerProcess, startServerProcess } from '../../dev/soak/server-process';
import { conversationId, eventId, message } from '../support/events';

const CONVERSATION = conversationId(70);
const EVENT_COUNT = 100;
const TEXT_BYTES = 200_000;
const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

let root: string;
const servers = new Map<string, ServerProcess>();
beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'hardening-signals-'));
  const text = 'x'.repeat(TEXT_BYTES);
  const events = Array.from({ length: EVENT_COUNT }, (_, i) =>
    message({ id: eventId(i), timestamp: `2026-06-16T05:40:00.${String(i).padStart(6, '0')}`, source: 'user' }, { text: [text] }),
  );
  writeConversation(root, CONVERSATION, events);
  // Both processes start together: starting is most of this file's time.
  const started = await Promise.all(SIGNALS.map(() => startServerProcess({ conversationsPath: root })));
  for (const [i, signal] of SIGNALS.entries()) servers.set(signal, started[i]!);
});
afterAll(async () => {
  await Promise.all([...servers.values()].map((server) => server.stop()));
  rmSync(root, { recursive: true, force: true });
});

interface SlowReader {
  /** Bytes received so far. */
  received(): number;
  /** Starts reading; resolves with the whole response once the server closes the connection. */
  readToEnd(): Promise<string>;
}

/** Sends the request on a keep-alive connection, waits for the first bytes of the answer, then stops reading. */
async function startSlowRead(url: string, target: string): Promise<SlowReader> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  const chunks: Buffer[] = [];
  let received = 0;
  const closed = new Promise<void>((resolve, reject) => {
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
  const firstBytes = new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.on('data', (chunk) => {
    chunks.push(chunk);
    received += chunk.length;
  });
  socket.write(`GET ${target} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  await firstBytes;
  socket.pause();
  return {
    received: () => received,
    async readToEnd() {
      socket.resume();
      await closed;
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

/** Whether a new TCP connection to `url` is refused right now. */
function refusesConnections(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** Past this, a server still accepting connections after the signal has failed: far beyond what a busy machine explains. */
const REFUSED_WITHIN_MS = 10_000;

async function refusedWithin(url: string, withinMs: number): Promise<void> {
  const started = performance.now();
  while (!(await refusesConnections(url))) {
    if (performance.now() - started > withinMs) throw new Error(`${url} still accepts connections ${withinMs} ms after the signal`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(SIGNALS)('%s', (signal) => {
  it('new connections are refused at once, the request in flight completes with 200, then the process exits 0 of itself', async () => {
    const server = servers.get(signal)!;
    const reader = await startSlowRead(server.url, `/api/conversations/${CONVERSATION}/events/search`);

    server.kill(signal);
    await refusedWithin(server.url, REFUSED_WITHIN_MS);
    const receivedAtRefusal = reader.received();
    const response = await reader.readToEnd();
    // No clock on the exit: a busy machine reads the page slower, and a process that never
    // exits is caught by jest.config.js's hang guard.
    const exit = await server.exited;

    const [head = '', body = ''] = response.split('\r\n\r\n');
    const page = JSON.parse(body) as EventPage;
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect({ items: page.items.length, next_page_id: page.next_page_id }).toEqual({ items: EVENT_COUNT, next_page_id: null });
    // Refused while the request in flight was still being read: at once, whatever the clock says.
    expect(receivedAtRefusal).toBeLessThan(Buffer.byteLength(body));
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server.stderr.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ level: 'info', message: 'shutting down', signal }),
    );
  });
});

it('on a loopback host without keys, no warning about open access is printed', () => {
  for (const server of servers.values()) expect(server.stderr.join('\n')).not.toContain('no session API key is set');
});
