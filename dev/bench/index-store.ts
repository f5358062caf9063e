/**
 * `npm run bench -- --index-store [--conversations N (0: none)] [--events-per-conversation N] [--long-events N (0: none)] [--against REF]`
 * The SQLite index store as a user meets it, on this checkout's built server (dist/), and
 * with `--against REF` on REF's built in a temporary worktree, on the same archives, one
 * build after the other in one run:
 * an archive of N conversations, first start until a search across conversations finds an
 * event, until every conversation is stored and until the text index is complete, then a
 * restart on that complete index to a first page, the first search across conversations after it, then
 * `body`, `text` and newest-first searches across conversations (p50, p99), and the
 * server's peak resident memory; then one long conversation: first index, first page,
 * a deep page, and a `body` that matches nothing. Appended to bench/RESULTS.md.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateConversation } from '../../src/fixture';
import { writeConversation } from '../../src/fixture/layout';
import { type ScriptProcess, spawnScript } from '../process/server-process';
import { withRefBuild } from './against-ref';
import { describeCommit, describeMachine, loadAverage } from './environment';

const PROJECT_ROOT = path.resolve(__dirname, '../..');

export interface IndexStoreBenchOptions {
  conversations: number;
  eventsPerConversation: number;
  longEvents: number;
  /** Another commit to measure beside this checkout, built in a temporary worktree. */
  against?: { ref: string; repoRoot: string; logs: string };
  progress: (line: string) => void;
}

interface Started {
  process: ScriptProcess;
  url: string;
  readyMs: number;
  /** What the server wrote to stderr so far. */
  errors(): string;
  /** Resolves once the server has logged `line`. */
  logged(line: string): Promise<void>;
}

async function start(projectRoot: string, root: string, indexPath: string): Promise<Started> {
  const started = performance.now();
  const child = spawnScript('dist/src/cli/start.js', ['--port', '0', '--conversations-path', root, '--index-path', indexPath], {
    compiled: true,
    projectRoot,
    label: 'index-store bench',
  });
  let output = '';
  let errors = '';
  child.child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const logged = async (line: string) => {
    // The server logs to stderr.
    while (!errors.includes(line)) {
      if (child.child.exitCode !== null) throw new Error(`the server exited before logging "${line}":\n${errors.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  for (;;) {
    const match = /listening on (http:\/\/\S+?),/.exec(output);
    if (match) return { process: child, url: match[1]!, readyMs: performance.now() - started, errors: () => errors, logged };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Seconds from the start of a process that took `server.readyMs` to be ready, when `readyAt` was taken. */
function sinceStart(readyAt: number, server: Started): number {
  return (performance.now() - readyAt + server.readyMs) / 1000;
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

/** The archives every build is measured on. */
interface Archives {
  root: string;
  hexes: string[];
  longRoot: string;
  longId: string;
  /** Events of the long conversation; 0: none is measured. */
  longEvents: number;
}

/** One build's figures, in the order of the report's rows; `ms` and `s` say the unit. */
type Figures = { name: string; value: number; unit: 'ms' | 's' | 'MiB'; long?: boolean }[];

async function measureBuild(projectRoot: string, archives: Archives, work: string, name: string, progress: (line: string) => void): Promise<Figures> {
  const figures: Figures = archives.hexes.length === 0 ? [] : await measureArchive(projectRoot, archives, work, name, progress);
  if (archives.longEvents === 0) return figures;
  return [...figures, ...(await measureLong(projectRoot, archives, work, name))];
}

/** The archive of many conversations: first start, restart, searches across conversations. */
async function measureArchive(
  projectRoot: string,
  archives: Archives,
  work: string,
  name: string,
  progress: (line: string) => void,
): Promise<Figures> {
  const figures: Figures = [];
  const indexPath = path.join(work, `${name}-archive.sqlite`);
  let server = await start(projectRoot, archives.root, indexPath);
  const firstStart = performance.now();
  let across = `${server.url}/api/stored-conversations/events/search?limit=20`;
  let found = false;
  while (!found) {
    // A search across conversations waits for the first pass; on a large archive that may outlast fetch's own time limit.
    const answer = await timed(`${across}&body=the`).catch((error: unknown) => {
      if (server.process.child.exitCode !== null) throw new Error(`the server exited during its first start:\n${server.errors().slice(-2000)}`);
      progress(`index-store ${name}: a search across conversations failed (${String(error)}), asking again`);
      return undefined;
    });
    found = answer?.status === 200 && (answer.body as { items: unknown[] }).items.length > 0;
  }
  const firstSearchSeconds = sinceStart(firstStart, server);
  figures.push({ name: 'first start until a search across conversations finds an event', value: firstSearchSeconds, unit: 's' });
  // The restart is measured on a complete index, as a server that ran once has. A build that
  // fills its trigram index behind the rows says so in its own log line.
  await server.logged('conversations index built');
  figures.push({ name: 'first start until every conversation is stored', value: sinceStart(firstStart, server), unit: 's' });
  if (existsSync(path.join(projectRoot, 'src/store/sqlite/text-index.ts'))) await server.logged('text index built');
  figures.push({ name: 'first start until the text index is complete', value: sinceStart(firstStart, server), unit: 's' });
  figures.push({ name: 'peak RSS during the first start', value: peakRssMiB(server.process.pid), unit: 'MiB' });
  await server.process.stop(5000);
  progress(`index-store ${name}: first start to a search across conversations ${firstSearchSeconds.toFixed(1)} s`);

  server = await start(projectRoot, archives.root, indexPath);
  const restarted = server;
  const firstPage = await timed(`${server.url}/api/conversations/${archives.hexes[archives.hexes.length - 1]}/events/search?limit=100`).catch(
    (error: unknown) => {
      throw new Error(`the restarted server did not answer: ${String(error)}\n${restarted.errors().slice(-2000)}`);
    },
  );
  across = `${server.url}/api/stored-conversations/events/search?limit=20`;
  const firstAcross = await timed(`${across}&body=the`);
  figures.push({ name: 'restart: process ready', value: server.readyMs, unit: 'ms' });
  figures.push({ name: 'restart: first page of a conversation after ready', value: firstPage.ms, unit: 'ms' });
  figures.push({ name: 'restart: first search across conversations', value: firstAcross.ms, unit: 'ms' });
  const samples: Record<string, number[]> = { body: [], text: [], newest: [] };
  const words = ['test', 'error', 'the', 'file', 'fix', 'rounding', 'migration', 'zzzz-no-match'];
  for (let round = 0; round < 40; round++) {
    const word = words[round % words.length]!;
    samples['body']!.push((await timed(`${across}&body=${word}`)).ms);
    samples['text']!.push((await timed(`${across}&text=${word}`)).ms);
    samples['newest']!.push((await timed(`${across}&sort_order=TIMESTAMP_DESC`)).ms);
  }
  for (const [search, values] of Object.entries(samples)) {
    figures.push({ name: `${search} search across conversations p50 (${values.length} requests)`, value: percentile(values, 50), unit: 'ms' });
    figures.push({ name: `${search} search across conversations p99 (${values.length} requests)`, value: percentile(values, 99), unit: 'ms' });
  }
  figures.push({ name: "peak RSS after the restart's searches", value: peakRssMiB(server.process.pid), unit: 'MiB' });
  await server.process.stop(5000);
  return figures;
}

/** The long conversation: first index, pages, a `body` that matches nothing. */
async function measureLong(projectRoot: string, archives: Archives, work: string, name: string): Promise<Figures> {
  const figures: Figures = [];
  const { longId } = archives;
  const longServer = await start(projectRoot, archives.longRoot, path.join(work, `${name}-long.sqlite`));
  const conversation = `${longServer.url}/api/conversations/${longId}/events/search?limit=100`;
  const longStart = performance.now();
  const longFirst = await timed(conversation);
  const firstPages: number[] = [];
  const deepPages: number[] = [];
  const nothing: number[] = [];
  const deepId = (await timed(`${conversation}&sort_order=TIMESTAMP_DESC`)).body as { items: { id: string }[] };
  for (let round = 0; round < 30; round++) {
    firstPages.push((await timed(conversation)).ms);
    deepPages.push((await timed(`${conversation}&page_id=${deepId.items[50]!.id}`)).ms);
    nothing.push((await timed(`${conversation}&body=zzzz-no-such-words`)).ms);
  }
  const long = true;
  const nothingIndexed: number[] = [];
  const fillsTextLater = existsSync(path.join(projectRoot, 'src/store/sqlite/text-index.ts'));
  if (fillsTextLater) {
    await longServer.logged('text index built');
    figures.push({ name: 'first index until the text index is complete', value: sinceStart(longStart, longServer), unit: 's', long });
    for (let round = 0; round < 30; round++) nothingIndexed.push((await timed(`${conversation}&body=zzzz-no-such-words`)).ms);
  }
  figures.push({ name: "first index (start to the first page's answer, index built on demand)", value: longFirst.ms, unit: 'ms', long });
  figures.push({ name: 'first page p50', value: percentile(firstPages, 50), unit: 'ms', long });
  figures.push({ name: 'deep page p50', value: percentile(deepPages, 50), unit: 'ms', long });
  // Right after the first page, as every build is measured; a build that fills its text index later is still filling it.
  figures.push({ name: 'body matching nothing p50', value: percentile(nothing, 50), unit: 'ms', long });
  figures.push({ name: 'body matching nothing p99', value: percentile(nothing, 99), unit: 'ms', long });
  if (fillsTextLater) {
    figures.push({ name: 'body matching nothing p50, text index complete', value: percentile(nothingIndexed, 50), unit: 'ms', long });
    figures.push({ name: 'body matching nothing p99, text index complete', value: percentile(nothingIndexed, 99), unit: 'ms', long });
  }
  figures.push({ name: 'peak RSS', value: peakRssMiB(longServer.process.pid), unit: 'MiB', long });
  await longServer.process.stop(5000);
  return figures;
}

export async function runIndexStoreBench(options: IndexStoreBenchOptions): Promise<string> {
  const machine = describeMachine();
  const loadBefore = loadAverage();
  const startedAt = new Date();
  const work = mkdtempSync(path.join(os.tmpdir(), 'index-store-bench-'));
  try {
    const archives: Archives = {
      root: path.join(work, 'archive'),
      hexes: [],
      longRoot: path.join(work, 'long'),
      longId: 'ffffffff-0000-4000-8000-000000000000',
      longEvents: options.longEvents,
    };
    for (let n = 0; n < options.conversations; n++) {
      const id = `${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
      writeConversation(archives.root, id, generateConversation({ events: options.eventsPerConversation, seed: `index-bench-${n}` }));
      archives.hexes.push(id);
    }
    if (options.longEvents > 0)
      writeConversation(archives.longRoot, archives.longId, generateConversation({ events: options.longEvents, seed: 'index-bench-long' }));
    const total = options.conversations * options.eventsPerConversation;
    options.progress(`index-store: wrote ${total} events in ${options.conversations} conversations, and one of ${options.longEvents}`);

    const builds: { label: string; figures: Figures }[] = [];
    builds.push({ label: 'this checkout', figures: await measureBuild(PROJECT_ROOT, archives, work, 'checkout', options.progress) });
    let beside = '';
    if (options.against) {
      const { ref, repoRoot, logs } = options.against;
      await withRefBuild(repoRoot, ref, logs, options.progress, async (build) => {
        builds.push({ label: build.label, figures: await measureBuild(build.tree, archives, work, build.label, options.progress) });
        beside = `; beside it ${build.refCommit}, built in a temporary worktree, measured after it on the same archives`;
      });
    }

    const lines: string[] = [];
    lines.push(`## Index store (SQLite), ${startedAt.toISOString()}`);
    lines.push('');
    lines.push(`This checkout: ${describeCommit(PROJECT_ROOT)}${beside}.`);
    lines.push('');
    lines.push(
      `Machine: ${machine.cores} × ${machine.cpuModel}, ${machine.memoryGiB.toFixed(0)} GiB, Node ${machine.nodeVersion}; load average ${loadBefore.toFixed(2)} before, ${loadAverage().toFixed(2)} after (the machine is shared with other work).`,
    );
    const table = (title: string, long: boolean) => {
      const other = builds[1];
      lines.push('');
      lines.push(
        `| measure | ${builds.map((build) => `${build.label}: ${title}`).join(' | ')}${other ? ` | this checkout / ${other.label} |` : ' |'}`,
      );
      lines.push(`|---|${builds.map(() => '---|').join('')}${other ? '---|' : ''}`);
      for (const figure of builds[0]!.figures) {
        if (Boolean(figure.long) !== long) continue;
        // By name: a build may measure what another does not (an older one has no deferred text index).
        const same = builds.map((build) => build.figures.find((candidate) => candidate.name === figure.name && Boolean(candidate.long) === long));
        const cells = same.map((found) => (found ? format(found) : '—'));
        const theirs = same[1];
        const ratio = other ? ` ${theirs ? (figure.value / theirs.value).toFixed(2) : '—'} |` : '';
        lines.push(`| ${figure.name} | ${cells.join(' | ')} |${ratio}`);
      }
    };
    if (options.conversations > 0) table(`${options.conversations} conversations × ${options.eventsPerConversation} events (${total})`, false);
    if (options.longEvents > 0) table(`one conversation of ${options.longEvents} events`, true);
    lines.push('');
    return lines.join('\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function format(figure: Figures[number]): string {
  if (figure.unit === 's') return `${figure.value.toFixed(1)} s`;
  if (figure.unit === 'MiB') return `${figure.value.toFixed(0)} MiB`;
  return `${figure.value.toFixed(1)} ms`;
}
