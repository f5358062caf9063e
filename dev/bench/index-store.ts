/**
 * `npm run bench -- --index-store [--conversations N (0: none)] [--events-per-conversation N] [--long-events N (0: none)] [--long-starts N] [--against REF] [--reference]`
 * The SQLite index store as a user meets it, on this checkout's built server (dist/), and
 * with `--against REF` on REF's built in a temporary worktree, on the same archives, one
 * build after the other in one run:
 * an archive of N conversations, first start until a search across conversations finds an
 * event, until every conversation is stored and until the text index is complete, then a
 * restart on that complete index to a first page, the first search across conversations after it, then
 * `body`, `text` and newest-first searches across conversations (p50, p99), and the
 * server's peak resident memory; then one long conversation: first index (the median of
 * `--long-starts` starts, each on a new index: this machine's speed wanders by about a
 * third from one start to the next), first page, a deep page, and a `body` that matches
 * nothing. With `--reference`, the reference agent
 * server last, on the same conversations (reference-beside.ts): its start, a first page, every
 * conversation's first page in turn and the memory that holds, and the long conversation as
 * ours. Appended to bench/RESULTS.md.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateConversation } from '../../src/fixture';
import { writeConversation } from '../../src/fixture/layout';
import { type ScriptProcess, spawnServer } from '../process/server-process';
import { withRefBuild } from './against-ref';
import { type BenchConversation, startReferenceBeside } from './reference-beside';
import { describeCommit, describeMachine, loadAverage } from './environment';
import { percentile } from './load';

const PROJECT_ROOT = path.resolve(__dirname, '../..');

export interface IndexStoreBenchOptions {
  conversations: number;
  eventsPerConversation: number;
  longEvents: number;
  /** How many times each build of ours indexes the long conversation from nothing; the first index is their median. */
  longStarts: number;
  /** Another commit to measure beside this checkout, built in a temporary worktree. */
  against?: { ref: string; repoRoot: string; logs: string };
  /** The reference agent server on the same conversations, after the builds. */
  reference?: boolean;
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
  const child = await spawnServer({
    compiled: true,
    projectRoot,
    conversationsPath: root,
    args: ['--index-path', indexPath],
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
  while (!output.includes('listening on')) {
    if (child.child.exitCode !== null) throw new Error(`the server exited before listening:\n${errors.slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { process: child, url: child.url, readyMs: performance.now() - child.spawnedAt, errors: () => errors, logged };
}

/**
 * Searches of each kind across conversations after the restart: enough that their p99 is
 * not simply the slowest, which one hiccup of the machine's decides.
 */
const SEARCH_ROUNDS = 200;

/** Seconds from the start of a process that took `server.readyMs` to be ready, when `readyAt` was taken. */
function sinceStart(readyAt: number, server: { readyMs: number }): number {
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

/** The nearest-rank percentile of values in any order. */
function percentileOf(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return percentile(sorted, fraction);
}

/** The archives every build is measured on. */
interface Archives {
  root: string;
  conversations: BenchConversation[];
  longRoot: string;
  /** None with `--long-events 0`. */
  long?: BenchConversation;
}

/** One build's figures, in the order of the report's rows; `ms` and `s` say the unit. */
type Figures = { name: string; value: number; unit: 'ms' | 's' | 'MiB'; long?: boolean }[];

/** A server measured, its figures, and the long conversation's first page as it answered it. */
interface Measured {
  label: string;
  figures: Figures;
  firstPage?: string;
}

async function measureBuild(
  label: string,
  projectRoot: string,
  archives: Archives,
  work: string,
  name: string,
  longStarts: number,
  progress: (line: string) => void,
): Promise<Measured> {
  const figures: Figures = archives.conversations.length === 0 ? [] : await measureArchive(projectRoot, archives, work, name, progress);
  if (!archives.long) return { label, figures };
  const long = await measureLong(projectRoot, archives.longRoot, archives.long, work, name, longStarts);
  return { label, figures: [...figures, ...long.figures], firstPage: long.firstPage };
}

/**
 * The reference agent server on the same conversations (reference-beside.ts). It has no index
 * and no search across conversations: on the archive it is measured as our restart is, then
 * every conversation's first page in turn.
 */
async function measureReference(archives: Archives, work: string, progress: (line: string) => void): Promise<Measured> {
  const figures: Figures = [];
  let label = '';
  if (archives.conversations.length > 0) {
    const reference = await startReferenceBeside(archives.root, archives.conversations, path.join(work, 'reference-archive'));
    label = reference.label;
    const last = archives.conversations[archives.conversations.length - 1]!;
    const firstPage = await timed(`${reference.url}/api/conversations/${last.id}/events/search?limit=100`);
    figures.push({ name: 'restart: process ready', value: reference.readyMs, unit: 'ms' });
    figures.push({ name: 'restart: first page of a conversation after ready', value: firstPage.ms, unit: 'ms' });
    figures.push(...(await everyFirstPage(reference.url, archives.conversations, reference.pid)));
    await reference.stop();
    progress(`index-store ${label}: the archive measured`);
  }
  if (!archives.long) return { label, figures };
  const reference = await startReferenceBeside(archives.longRoot, [archives.long], path.join(work, 'reference-long'));
  const long = await measureLongServer(reference, archives.long.id);
  return { label: reference.label, figures: [...figures, ...long.figures], firstPage: long.firstPage };
}

/** Every conversation's first page, one after another, and the memory the server then holds at most. */
async function everyFirstPage(url: string, conversations: readonly BenchConversation[], pid: number): Promise<Figures> {
  const started = performance.now();
  for (const { id } of conversations) {
    const page = await timed(`${url}/api/conversations/${id}/events/search?limit=100`);
    if (page.status !== 200) throw new Error(`${url} answered ${page.status} for ${id}'s first page: ${JSON.stringify(page.body).slice(0, 300)}`);
  }
  return [
    { name: 'first page of every conversation, one after another', value: (performance.now() - started) / 1000, unit: 's' },
    { name: "peak RSS after every conversation's first page", value: peakRssMiB(pid), unit: 'MiB' },
  ];
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
  const firstPage = await timed(
    `${server.url}/api/conversations/${archives.conversations[archives.conversations.length - 1]!.id}/events/search?limit=100`,
  ).catch((error: unknown) => {
    throw new Error(`the restarted server did not answer: ${String(error)}\n${restarted.errors().slice(-2000)}`);
  });
  across = `${server.url}/api/stored-conversations/events/search?limit=20`;
  const firstAcross = await timed(`${across}&body=the`);
  figures.push({ name: 'restart: process ready', value: server.readyMs, unit: 'ms' });
  figures.push({ name: 'restart: first page of a conversation after ready', value: firstPage.ms, unit: 'ms' });
  figures.push({ name: 'restart: first search across conversations', value: firstAcross.ms, unit: 'ms' });
  const samples: Record<string, number[]> = { body: [], text: [], newest: [] };
  const words = ['test', 'error', 'the', 'file', 'fix', 'rounding', 'migration', 'zzzz-no-match'];
  for (let round = 0; round < SEARCH_ROUNDS; round++) {
    const word = words[round % words.length]!;
    samples['body']!.push((await timed(`${across}&body=${word}`)).ms);
    samples['text']!.push((await timed(`${across}&text=${word}`)).ms);
    samples['newest']!.push((await timed(`${across}&sort_order=TIMESTAMP_DESC`)).ms);
  }
  for (const [search, values] of Object.entries(samples)) {
    figures.push({ name: `${search} search across conversations p50 (${values.length} requests)`, value: percentileOf(values, 0.5), unit: 'ms' });
    figures.push({ name: `${search} search across conversations p99 (${values.length} requests)`, value: percentileOf(values, 0.99), unit: 'ms' });
  }
  figures.push({ name: "peak RSS after the restart's searches", value: peakRssMiB(server.process.pid), unit: 'MiB' });
  figures.push(...(await everyFirstPage(server.url, archives.conversations, server.process.pid)));
  await server.process.stop(5000);
  return figures;
}

/** A server of the long conversation, ours or the reference. */
interface LongServer {
  url: string;
  pid: number;
  readyMs: number;
  stop(): Promise<void>;
  /** Resolves once a build that fills its trigram index behind the rows has filled it. */
  textIndexBuilt?: () => Promise<void>;
}

/**
 * The long conversation on one build of ours: `starts - 1` starts that only time the first
 * index, each on a new index file, then one that measures everything.
 */
async function measureLong(
  projectRoot: string,
  longRoot: string,
  long: BenchConversation,
  work: string,
  name: string,
  starts: number,
): Promise<LongFigures> {
  const earlierFirstIndexes: number[] = [];
  for (let at = 1; at < starts; at++) {
    // A folder a start, removed whole with whatever files the index left beside it.
    const indexFolder = mkdtempSync(path.join(work, `${name}-long-`));
    const server = await start(projectRoot, longRoot, path.join(indexFolder, 'index.sqlite'));
    const firstPage = await timed(firstPageUrl(server.url, long.id));
    await server.process.stop(5000);
    rmSync(indexFolder, { recursive: true, force: true });
    if (firstPage.status !== 200)
      throw new Error(
        `start ${at} answered ${firstPage.status} for the long conversation's first page: ${JSON.stringify(firstPage.body).slice(0, 300)}`,
      );
    earlierFirstIndexes.push(firstPage.ms);
  }
  const server = await start(projectRoot, longRoot, path.join(work, `${name}-long.sqlite`));
  const fillsTextLater = existsSync(path.join(projectRoot, 'src/store/sqlite/text-index.ts'));
  return measureLongServer(
    {
      url: server.url,
      pid: server.process.pid,
      readyMs: server.readyMs,
      stop: async () => {
        await server.process.stop(5000);
      },
      textIndexBuilt: fillsTextLater ? () => server.logged('text index built') : undefined,
    },
    long.id,
    earlierFirstIndexes,
  );
}

function firstPageUrl(url: string, conversationId: string): string {
  return `${url}/api/conversations/${conversationId}/events/search?limit=100`;
}

/** What a server answered for the long conversation, and the first page it gave. */
interface LongFigures {
  figures: Figures;
  /** The first page's event ids and its `next_page_id`, to compare between servers. */
  firstPage: string;
}

/**
 * The long conversation: first index, pages, a `body` that matches nothing. The first index
 * is the median of this start's and `earlierFirstIndexes`, the other starts' of the build.
 */
async function measureLongServer(server: LongServer, longId: string, earlierFirstIndexes: readonly number[] = []): Promise<LongFigures> {
  const figures: Figures = [];
  const conversation = firstPageUrl(server.url, longId);
  const longStart = performance.now();
  const longFirst = await timed(conversation);
  const firstBody = longFirst.body as { items: { id: string }[]; next_page_id: string | null };
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
  if (server.textIndexBuilt) {
    await server.textIndexBuilt();
    figures.push({ name: 'first index until the text index is complete', value: sinceStart(longStart, server), unit: 's', long });
    for (let round = 0; round < 30; round++) nothingIndexed.push((await timed(`${conversation}&body=zzzz-no-such-words`)).ms);
  }
  figures.push({ name: 'process ready', value: server.readyMs, unit: 'ms', long });
  const firstIndexes = [...earlierFirstIndexes, longFirst.ms];
  figures.push({
    name: "first index (start to the first page's answer, index built on demand), median of the starts",
    value: percentileOf(firstIndexes, 0.5),
    unit: 'ms',
    long,
  });
  figures.push({ name: 'first page p50', value: percentileOf(firstPages, 0.5), unit: 'ms', long });
  figures.push({ name: 'deep page p50', value: percentileOf(deepPages, 0.5), unit: 'ms', long });
  // Right after the first page, as every build is measured; a build that fills its text index later is still filling it.
  figures.push({ name: 'body matching nothing p50', value: percentileOf(nothing, 0.5), unit: 'ms', long });
  figures.push({ name: 'body matching nothing p99', value: percentileOf(nothing, 0.99), unit: 'ms', long });
  if (server.textIndexBuilt) {
    figures.push({ name: 'body matching nothing p50, text index complete', value: percentileOf(nothingIndexed, 0.5), unit: 'ms', long });
    figures.push({ name: 'body matching nothing p99, text index complete', value: percentileOf(nothingIndexed, 0.99), unit: 'ms', long });
  }
  figures.push({ name: 'peak RSS', value: peakRssMiB(server.pid), unit: 'MiB', long });
  if (firstIndexes.length > 1) {
    figures.push({ name: 'first index, fastest start', value: Math.min(...firstIndexes), unit: 'ms', long });
    figures.push({ name: 'first index, slowest start', value: Math.max(...firstIndexes), unit: 'ms', long });
  }
  await server.stop();
  return { figures, firstPage: `${firstBody.items.map((item) => item.id).join(',')} then ${firstBody.next_page_id}` };
}

export async function runIndexStoreBench(options: IndexStoreBenchOptions): Promise<string> {
  const machine = describeMachine();
  const loadBefore = loadAverage();
  const startedAt = new Date();
  const work = mkdtempSync(path.join(os.tmpdir(), 'index-store-bench-'));
  try {
    const root = path.join(work, 'archive');
    const longRoot = path.join(work, 'long');
    const archives: Archives = {
      root,
      conversations: Array.from({ length: options.conversations }, (_, n) =>
        writeGenerated(root, `${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`, options.eventsPerConversation, `index-bench-${n}`),
      ),
      longRoot,
      long:
        options.longEvents > 0 ? writeGenerated(longRoot, 'ffffffff-0000-4000-8000-000000000000', options.longEvents, 'index-bench-long') : undefined,
    };
    const total = options.conversations * options.eventsPerConversation;
    options.progress(`index-store: wrote ${total} events in ${options.conversations} conversations, and one of ${options.longEvents}`);

    const builds: Measured[] = [];
    builds.push(await measureBuild('this checkout', PROJECT_ROOT, archives, work, 'checkout', options.longStarts, options.progress));
    let beside = '';
    if (options.against) {
      const { ref, repoRoot, logs } = options.against;
      await withRefBuild(repoRoot, ref, logs, options.progress, async (build) => {
        builds.push(await measureBuild(build.label, build.tree, archives, work, build.label, options.longStarts, options.progress));
        beside = `; beside it ${build.refCommit}, built in a temporary worktree, measured after it on the same archives`;
      });
    }
    if (options.reference) {
      options.progress('index-store: the reference agent server on the same conversations');
      builds.push(await measureReference(archives, work, options.progress));
      beside += '; then the reference agent server on the same conversations (bench/README.md, "The reference beside us")';
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
      // A server that measured none of this table's rows (the reference, of the archive) has no column in it.
      const shown = builds.filter((build) => build.figures.some((figure) => Boolean(figure.long) === long));
      const others = shown.slice(1);
      lines.push('');
      lines.push(
        `| measure | ${shown.map((build) => `${build.label}: ${title}`).join(' | ')} |${others.map((other) => ` this checkout / ${other.label} |`).join('')}`,
      );
      lines.push(`|---|${shown.map(() => '---|').join('')}${others.map(() => '---|').join('')}`);
      for (const figure of builds[0]!.figures) {
        if (Boolean(figure.long) !== long) continue;
        // By name: a build may measure what another does not (an older one has no deferred text index).
        const same = shown.map((build) => build.figures.find((candidate) => candidate.name === figure.name && Boolean(candidate.long) === long));
        const cells = same.map((found) => (found ? format(found) : '—'));
        const ratios = same.slice(1).map((theirs) => ` ${theirs ? (figure.value / theirs.value).toFixed(2) : '—'} |`);
        lines.push(`| ${figure.name} | ${cells.join(' | ')} |${ratios.join('')}`);
      }
    };
    if (options.conversations > 0) table(`${options.conversations} conversations × ${options.eventsPerConversation} events (${total})`, false);
    if (options.longEvents > 0) {
      table(`one conversation of ${options.longEvents} events`, true);
      lines.push('');
      lines.push(
        `The first index: ${options.longStarts} ${options.longStarts === 1 ? 'start' : 'starts'} of each build of ours, each on a new index file${options.reference ? '; one of the reference' : ''}.`,
      );
      const ours = builds[0]!.firstPage;
      const differing = builds.slice(1).filter((build) => build.firstPage !== ours);
      lines.push('');
      lines.push(
        differing.length === 0
          ? "The long conversation's first page: the same events, in the same order, with the same `next_page_id`, from every server."
          : `The long conversation's first page differs from this checkout's: ${differing.map((build) => build.label).join(', ')}.`,
      );
    }
    lines.push('');
    return lines.join('\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Writes a generated conversation of `events` events into `root`. */
function writeGenerated(root: string, id: string, events: number, seed: string): BenchConversation {
  const generated = generateConversation({ events, seed });
  writeConversation(root, id, generated);
  return { id, lastEventId: generated[generated.length - 1]!.id! };
}

function format(figure: Figures[number]): string {
  if (figure.unit === 's') return `${figure.value.toFixed(1)} s`;
  if (figure.unit === 'MiB') return `${figure.value.toFixed(0)} MiB`;
  return `${figure.value.toFixed(1)} ms`;
}
