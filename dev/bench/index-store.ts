/**
 * `npm run bench -- --index-store [--conversations N] [--events-per-conversation N] [--long-events N]`
 * The SQLite index store as a user meets it, on this checkout's built server (dist/):
 * an archive of N conversations, first start until a search across conversations finds an
 * event, restart to a first page, the first search across conversations after it, then
 * `body`, `text` and newest-first searches across conversations (p50, p99), and the
 * server's peak resident memory; then one long conversation: first index, first page,
 * a deep page, and a `body` that matches nothing. Appended to bench/RESULTS.md.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateConversation } from '../../src/fixture';
import { writeConversation } from '../../src/fixture/layout';
import { type ScriptProcess, spawnScript } from '../process/server-process';
import { describeMachine, loadAverage } from './environment';

export interface IndexStoreBenchOptions {
  conversations: number;
  eventsPerConversation: number;
  longEvents: number;
  progress: (line: string) => void;
}

interface Started {
  process: ScriptProcess;
  url: string;
  readyMs: number;
  /** What the server wrote to stderr so far. */
  errors(): string;
}

async function start(root: string, indexPath: string): Promise<Started> {
  const started = performance.now();
  const child = spawnScript('dist/src/cli/start.js', ['--port', '0', '--conversations-path', root, '--index-path', indexPath], {
    compiled: true,
    label: 'index-store bench',
  });
  let output = '';
  let errors = '';
  child.child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  for (;;) {
    const match = /listening on (http:\/\/\S+?),/.exec(output);
    if (match) return { process: child, url: match[1]!, readyMs: performance.now() - started, errors: () => errors };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The process's peak resident memory so far, in MiB (VmHWM). */
function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function timed(url: string): Promise<{ ms: number; status: number; body: unknown }> {
  const started = performance.now();
  const response = await fetch(url);
  const body = await response.json();
  return { ms: performance.now() - started, status: response.status, body };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function runIndexStoreBench(options: IndexStoreBenchOptions): Promise<string> {
  const machine = describeMachine();
  const loadBefore = loadAverage();
  const lines: string[] = [];
  const work = mkdtempSync(path.join(os.tmpdir(), 'index-store-bench-'));
  try {
    const root = path.join(work, 'archive');
    const indexPath = path.join(work, 'archive.sqlite');
    const hexes: string[] = [];
    for (let n = 0; n < options.conversations; n++) {
      const id = `${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
      writeConversation(root, id, generateConversation({ events: options.eventsPerConversation, seed: `index-bench-${n}` }));
      hexes.push(id);
    }
    const total = options.conversations * options.eventsPerConversation;
    options.progress(`index-store: wrote ${total} events in ${options.conversations} conversations`);

    let server = await start(root, indexPath);
    const firstStart = performance.now();
    let across = `${server.url}/api/stored-conversations/events/search?limit=20`;
    let found = false;
    while (!found) {
      const answer = await timed(`${across}&body=the`);
      found = answer.status === 200 && (answer.body as { items: unknown[] }).items.length > 0;
    }
    const firstSearchSeconds = (performance.now() - firstStart + server.readyMs) / 1000;
    const firstPeak = peakRssMiB(server.process.pid);
    await server.process.stop(5000);
    options.progress(`index-store: first start to a search across conversations ${firstSearchSeconds.toFixed(1)} s`);

    server = await start(root, indexPath);
    const restarted = server;
    const firstPage = await timed(`${server.url}/api/conversations/${hexes[hexes.length - 1]}/events/search?limit=100`).catch((error: unknown) => {
      throw new Error(`the restarted server did not answer: ${String(error)}\n${restarted.errors().slice(-2000)}`);
    });

    across = `${server.url}/api/stored-conversations/events/search?limit=20`;
    const firstAcross = await timed(`${across}&body=the`);
    const samples: Record<string, number[]> = { body: [], text: [], newest: [] };
    const words = ['test', 'error', 'the', 'file', 'fix', 'rounding', 'migration', 'zzzz-no-match'];
    for (let round = 0; round < 40; round++) {
      const word = words[round % words.length]!;
      samples['body']!.push((await timed(`${across}&body=${word}`)).ms);
      samples['text']!.push((await timed(`${across}&text=${word}`)).ms);
      samples['newest']!.push((await timed(`${across}&sort_order=TIMESTAMP_DESC`)).ms);
    }
    const restartPeak = peakRssMiB(server.process.pid);
    await server.process.stop(5000);

    // One long conversation in its own archive.
    const longRoot = path.join(work, 'long');
    const longId = 'ffffffff-0000-4000-8000-000000000000';
    writeConversation(longRoot, longId, generateConversation({ events: options.longEvents, seed: 'index-bench-long' }));
    const longServer = await start(longRoot, path.join(work, 'long.sqlite'));
    const longFirst = await timed(`${longServer.url}/api/conversations/${longId}/events/search?limit=100`);
    const longIndexMs = longFirst.ms;
    const firstPages: number[] = [];
    const deepPages: number[] = [];
    const nothing: number[] = [];
    const deepId = (await timed(`${longServer.url}/api/conversations/${longId}/events/search?limit=100&sort_order=TIMESTAMP_DESC`)).body as {
      items: { id: string }[];
    };
    for (let round = 0; round < 30; round++) {
      firstPages.push((await timed(`${longServer.url}/api/conversations/${longId}/events/search?limit=100`)).ms);
      deepPages.push((await timed(`${longServer.url}/api/conversations/${longId}/events/search?limit=100&page_id=${deepId.items[50]!.id}`)).ms);
      nothing.push((await timed(`${longServer.url}/api/conversations/${longId}/events/search?limit=100&body=zzzz-no-such-words`)).ms);
    }
    const longPeak = peakRssMiB(longServer.process.pid);
    await longServer.process.stop(5000);

    const f = (ms: number) => `${ms.toFixed(1)} ms`;
    lines.push(`## Index store (SQLite), ${new Date().toISOString()}`);
    lines.push('');
    lines.push(
      `Machine: ${machine.cores} × ${machine.cpuModel}, ${machine.memoryGiB.toFixed(0)} GiB, Node ${machine.nodeVersion}; load average ${loadBefore.toFixed(2)} before, ${loadAverage().toFixed(2)} after (the machine is shared with other work).`,
    );
    lines.push('');
    lines.push(`| measure | ${options.conversations} conversations × ${options.eventsPerConversation} events (${total}) |`);
    lines.push('|---|---|');
    lines.push(`| first start until a search across conversations finds an event | ${firstSearchSeconds.toFixed(1)} s |`);
    lines.push(`| peak RSS during the first start | ${firstPeak.toFixed(0)} MiB |`);
    lines.push(`| restart: process ready | ${f(server.readyMs)} |`);
    lines.push(`| restart: first page of a conversation after ready | ${f(firstPage.ms)} |`);
    lines.push(`| restart: first search across conversations | ${f(firstAcross.ms)} |`);
    for (const [name, values] of Object.entries(samples)) {
      lines.push(
        `| ${name} search across conversations p50 / p99 (${values.length} requests) | ${f(percentile(values, 50))} / ${f(percentile(values, 99))} |`,
      );
    }
    lines.push(`| peak RSS after the restart's searches | ${restartPeak.toFixed(0)} MiB |`);
    lines.push('');
    lines.push(`| measure | one conversation of ${options.longEvents} events |`);
    lines.push('|---|---|');
    lines.push(`| first index (start to the first page's answer, index built on demand) | ${f(longIndexMs)} |`);
    lines.push(`| first page p50 | ${f(percentile(firstPages, 50))} |`);
    lines.push(`| deep page p50 | ${f(percentile(deepPages, 50))} |`);
    lines.push(`| body matching nothing p50 / p99 | ${f(percentile(nothing, 50))} / ${f(percentile(nothing, 99))} |`);
    lines.push(`| peak RSS | ${longPeak.toFixed(0)} MiB |`);
    lines.push('');
    return lines.join('\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
