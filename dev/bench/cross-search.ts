/**
 * `npm run bench -- --cross-search [--sqlite-only]`: the search across stored conversations
 * and the export, side by side in one run. The search over 1000 conversations of 200 events
 * on the SQLite index of the directory (each server on an index of its own, built by its
 * first start), without a memory budget and under 64 MiB, and over 1M events (1000
 * conversations of 1000) on PostgreSQL: the first page, p50 and p99 of sequential
 * requests, for a body matching nothing and one matching a few events (a phrase written
 * into three conversations beside the generated ones), and the server's memory: idle (its
 * first answer), its peak over its whole life (the first index included), judged against
 * the budget's bound. Then a 100k-event conversation exported as JSON lines and Markdown
 * from each store: MB/s, and the server's peak resident memory during the export alone
 * (the kernel's high-water mark reset first). `--sqlite-only` measures the search on the
 * SQLite index alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeConversation } from '../../src/fixture';
import { createMemoryLogger } from '../../src/log';
import { type ScriptProcess, processMemory } from '../process/server-process';
import { createPool } from '../../src/store/postgres/connection';
import { ingestConversations } from '../../src/store/ingest/ingester';
import { migrate } from '../../src/store/postgres/migrations';
import { postgresDatabase } from '../../src/store/postgres/postgres-database';
import { startLocalCluster } from '../postgres/local-cluster';
import { ensureDataset } from './datasets';
import { describeCommit, describeMachine, loadAverage } from './environment';
import { getOk, keepAliveAgent, timedGet } from './http-get';
import { startCompiledServer } from './server-process';
import { percentile } from './load';
import { ensureManyConversations } from './many-conversations';

export interface CrossSearchBenchOptions {
  readonly quick: boolean;
  readonly repoRoot: string;
  readonly dataDirectory: string;
  /** Only the search on the SQLite index: no PostgreSQL, no export. */
  readonly sqliteOnly?: boolean;
}

interface SearchFigures {
  /** The first request after the server started: every conversation read from disk. */
  coldMs: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  hits: number;
}

interface StoreSearchFigures {
  store: string;
  data: string;
  nothing: SearchFigures;
  few: SearchFigures;
  /** The most resident while searching (the high-water mark reset before the first search). */
  peakResidentBytes: number;
  /** Resident at the server's first answer, before it had read a conversation; undefined where not measured. */
  idleResidentBytes?: number;
  /** The most resident over the server's whole life, its first index included. */
  lifePeakResidentBytes?: number;
  /** `--memory-budget-mb`, where one was given. */
  budgetMiB?: number;
}

interface ExportFigures {
  store: string;
  format: 'jsonl' | 'markdown';
  bytes: number;
  seconds: number;
  megabytesPerSecond: number;
  /** Resident memory when the export started (the conversation already read), and the most during it. */
  residentBeforeBytes: number;
  peakResidentBytes: number;
}

export interface CrossSearchBenchResults {
  startedAt: Date;
  elapsedSeconds: number;
  commit: string;
  machine: string;
  loadAverageAtStart: number;
  loadAverageAtEnd: number;
  search: StoreSearchFigures[];
  exports: ExportFigures[];
}

/** Written into FEW_CONVERSATIONS conversations of their own, so "a few" is exactly that many events. */
const FEW_PHRASE = 'zebra ledger 7731';
const FEW_CONVERSATIONS = 3;
const NOTHING_PHRASE = 'zqxjkvw no such text';
const PAGE = 20;
/**
 * Under a memory budget, what a server may hold beyond its idle size: the budget plus this
 * (the same bound as `--scaling-only`'s budget run, targets.ts).
 */
const BUDGET_HEADROOM_MIB = 48;

export async function runCrossSearchBench(options: CrossSearchBenchOptions, progress: (line: string) => void): Promise<CrossSearchBenchResults> {
  const startedAt = new Date();
  const started = performance.now();
  const loadAverageAtStart = loadAverage();
  const directorySpec = options.quick ? { count: 100, eventsEach: 200 } : { count: 1000, eventsEach: 200 };
  const postgresSpec = options.quick ? { count: 100, eventsEach: 1000 } : { count: 1000, eventsEach: 1000 };
  const requests = options.quick ? 5 : 20;
  const servers: ScriptProcess[] = [];
  const search: StoreSearchFigures[] = [];
  const exports: ExportFigures[] = [];
  const indexes = mkdtempSync(path.join(os.tmpdir(), 'cross-search-indexes-'));
  try {
    const directoryData = ensureManyConversations(directorySpec, path.join(options.dataDirectory, 'cross-search-directory'), progress);
    addFewMatches(directoryData.root);
    const directoryLabel = `${directorySpec.count} conversations of ${directorySpec.eventsEach} events`;
    for (const budget of [undefined, 64]) {
      const name = budget === undefined ? 'SQLite index, no budget' : `SQLite index, ${budget} MiB budget`;
      progress(`cross-search: ${name}`);
      const args = [
        '--conversations-path',
        directoryData.root,
        '--index-path',
        path.join(indexes, `budget-${budget ?? 'none'}.sqlite`),
        ...(budget === undefined ? [] : ['--memory-budget-mb', String(budget)]),
      ];
      const server = await startCompiledServer(servers, args, options.repoRoot);
      const idleResidentBytes = processMemory(server.pid).residentBytes;
      const peakBeforeSearching = processMemory(server.pid).peakResidentBytes;
      const figures = await measureSearch(server, requests);
      const lifePeakResidentBytes = Math.max(peakBeforeSearching, figures.peakResidentBytes);
      search.push({ store: name, data: directoryLabel, ...figures, idleResidentBytes, lifePeakResidentBytes, budgetMiB: budget });
      await stopLast(servers);
    }
    if (options.sqliteOnly) return crossSearchResults(options, startedAt, started, loadAverageAtStart, search, exports);

    const postgresData = ensureManyConversations(postgresSpec, path.join(options.dataDirectory, 'postgres-many'), progress);
    addFewMatches(postgresData.root);
    const exportDataset = ensureDataset(
      options.quick ? { label: '10k', events: 10_000, seed: 'bench-10k' } : { label: '100k', events: 100_000, seed: 'bench-100k' },
      path.join(options.dataDirectory, 'cross-search-export', 'conversations'),
      path.join(options.dataDirectory, 'cross-search-export', 'markers'),
      progress,
    );
    const exportRoot = path.join(options.dataDirectory, 'cross-search-export', 'conversations');

    progress('cross-search: directory export');
    {
      const server = await startCompiledServer(servers, ['--conversations-path', exportRoot], options.repoRoot);
      exports.push(...(await measureExports(server, exportDataset.conversationIdHex, 'directory', progress)));
      await stopLast(servers);
    }

    progress('cross-search: starting a durable throwaway PostgreSQL cluster');
    const cluster = await startLocalCluster({ durable: true });
    try {
      const logger = createMemoryLogger();
      const pool = createPool(cluster.url, logger);
      const ingestStarted = performance.now();
      for (const root of [postgresData.root, exportRoot]) {
        await migrate(pool).then(() =>
          ingestConversations({
            root,
            database: postgresDatabase(pool),
            logger,
            onProgress: (p) => progress(`cross-search: ingest ${p.filesDone}/${p.filesTotal}`),
          }),
        );
      }
      progress(`cross-search: ingested in ${((performance.now() - ingestStarted) / 1000).toFixed(0)} s`);
      await pool.query('VACUUM ANALYZE events');
      await pool.end();
      const server = await startCompiledServer(servers, ['--database-url', cluster.url], options.repoRoot);
      const events = postgresSpec.count * postgresSpec.eventsEach + exportDataset.spec.events + FEW_CONVERSATIONS;
      progress('cross-search: PostgreSQL search');
      search.push({
        store: 'PostgreSQL',
        data: `${events} events (${postgresSpec.count} conversations of ${postgresSpec.eventsEach}, and one of ${exportDataset.spec.events})`,
        ...(await measureSearch(server, requests)),
      });
      exports.push(...(await measureExports(server, exportDataset.conversationIdHex, 'PostgreSQL', progress)));
      await stopLast(servers);
    } finally {
      await cluster.stop();
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop(5000)));
    rmSync(indexes, { recursive: true, force: true });
  }
  return crossSearchResults(options, startedAt, started, loadAverageAtStart, search, exports);
}

function crossSearchResults(
  options: CrossSearchBenchOptions,
  startedAt: Date,
  started: number,
  loadAverageAtStart: number,
  search: StoreSearchFigures[],
  exports: ExportFigures[],
): CrossSearchBenchResults {
  const machine = describeMachine();
  return {
    startedAt,
    elapsedSeconds: (performance.now() - started) / 1000,
    commit: describeCommit(options.repoRoot),
    machine: `${machine.cpuModel}, ${machine.cores} cores`,
    loadAverageAtStart,
    loadAverageAtEnd: loadAverage(),
    search,
    exports,
  };
}

/** Three small conversations whose first message holds FEW_PHRASE, timestamps among the generated ones. */
function addFewMatches(root: string): void {
  for (let n = 0; n < FEW_CONVERSATIONS; n++) {
    const hex = `f3e00000${String(n).padStart(24, '0')}`;
    writeConversation(root, hex, [
      {
        id: `f3e00000-0000-4000-8000-${String(n).padStart(12, '0')}`,
        timestamp: `2026-06-16T06:0${n}:00`,
        source: 'user',
        kind: 'MessageEvent',
        llm_message: { role: 'user', content: [{ type: 'text', text: `Find the ${FEW_PHRASE} entry and fix it.` }] },
      },
    ]);
  }
}

interface RunningServer {
  url: string;
  pid: number;
}

async function stopLast(servers: ScriptProcess[]): Promise<void> {
  await servers.pop()?.stop(5000);
}

async function measureSearch(
  server: RunningServer,
  requests: number,
): Promise<{ nothing: SearchFigures; few: SearchFigures; peakResidentBytes: number }> {
  resetPeakResident(server.pid);
  const nothing = await sequential(server, NOTHING_PHRASE, requests);
  const few = await sequential(server, FEW_PHRASE, requests);
  if (few.hits !== FEW_CONVERSATIONS) throw new Error(`The search for "${FEW_PHRASE}" found ${few.hits} events, not ${FEW_CONVERSATIONS}`);
  if (nothing.hits !== 0) throw new Error(`The search for "${NOTHING_PHRASE}" found ${nothing.hits} events`);
  return { nothing, few, peakResidentBytes: processMemory(server.pid).peakResidentBytes };
}

async function sequential(server: RunningServer, body: string, requests: number): Promise<SearchFigures> {
  const agent = keepAliveAgent();
  const url = `${server.url}/api/stored-conversations/events/search?limit=${PAGE}&sort_order=TIMESTAMP_DESC&body=${encodeURIComponent(body)}`;
  const cold = await getOk(url, agent);
  const hits = (JSON.parse(cold.body.toString('utf8')) as { items: unknown[] }).items.length;
  const times: number[] = [];
  for (let i = 0; i < requests; i++) times.push((await getOk(url, agent)).elapsedMs);
  agent.destroy();
  times.sort((a, b) => a - b);
  return { coldMs: cold.elapsedMs, p50Ms: percentile(times, 0.5), p99Ms: percentile(times, 0.99), requests, hits };
}

async function measureExports(server: RunningServer, hex: string, store: string, progress: (line: string) => void): Promise<ExportFigures[]> {
  // Read once first, so the figures are the export's, not the conversation's first load.
  await getOk(`${server.url}/api/conversations/${hex}/events/search?limit=1`);
  const figures: ExportFigures[] = [];
  for (const format of ['jsonl', 'markdown'] as const) {
    progress(`cross-search: ${store} export as ${format}`);
    const residentBeforeBytes = processMemory(server.pid).residentBytes;
    resetPeakResident(server.pid);
    const response = await timedGet(`${server.url}/api/stored-conversations/${hex}/export?format=${format}`);
    if (response.status !== 200) throw new Error(`export ${format} answered ${response.status}`);
    const seconds = response.elapsedMs / 1000;
    figures.push({
      store,
      format,
      bytes: response.body.length,
      seconds,
      megabytesPerSecond: response.body.length / (1024 * 1024) / seconds,
      residentBeforeBytes,
      peakResidentBytes: processMemory(server.pid).peakResidentBytes,
    });
  }
  return figures;
}

/** Resets the kernel's high-water mark of the process's resident memory (VmHWM), so a later read is the peak since now. */
function resetPeakResident(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not allowed here: the figure is then the peak since the process started, which the report says.
  }
}

/** Bytes as whole MiB, as the report's tables give memory. */
const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(0)} MiB`;

export function renderCrossSearchReport(results: CrossSearchBenchResults): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  return [
    `## Search across conversations and export, ${results.startedAt.toISOString()}`,
    '',
    `Commit ${results.commit}; ${results.machine}; ${results.elapsedSeconds.toFixed(0)} s. **Measured under load**: the machine is shared with other engineers' work (1-minute load average ${results.loadAverageAtStart.toFixed(1)} at the start, ${results.loadAverageAtEnd.toFixed(1)} at the end), so these figures are upper bounds, not a quiet machine's.`,
    '',
    `First page of ${PAGE} hits, newest first; "cold" is the first request after the server started (on the SQLite index, the server's first start: it answers once every conversation is indexed; on PostgreSQL, the database's cache cold), p50 and p99 are of the sequential requests after it (with 20 requests the p99 is their slowest).`,
    '',
    '| store | data | body | hits | cold | p50 | p99 | peak RSS while searching |',
    '|---|---|---|---|---|---|---|---|',
    ...results.search.flatMap((figures) =>
      (['nothing', 'few'] as const).map(
        (which) =>
          `| ${figures.store} | ${figures.data} | matching ${which === 'nothing' ? 'nothing' : 'a few'} | ${figures[which].hits} | ${ms(figures[which].coldMs)} | ${ms(figures[which].p50Ms)} | ${ms(figures[which].p99Ms)} | ${mib(figures.peakResidentBytes)} |`,
      ),
    ),
    '',
    ...memorySection(results.search),
    ...(results.exports.length === 0 ? [] : exportSection(results.exports)),
  ].join('\n');
}

/** Each SQLite server's memory over its life, and the budget's bound where one was given. */
function memorySection(search: StoreSearchFigures[]): string[] {
  const measured = search.filter((figures) => figures.idleResidentBytes !== undefined && figures.lifePeakResidentBytes !== undefined);
  if (measured.length === 0) return [];
  return [
    'Memory of each SQLite server: idle at its first answer, and its peak over its whole life (its first index, then the searches):',
    '',
    '| store | idle RSS | peak RSS | peak - idle | bound | |',
    '|---|---|---|---|---|---|',
    ...measured.map((figures) => {
      const idle = figures.idleResidentBytes!;
      const peak = figures.lifePeakResidentBytes!;
      const bound = figures.budgetMiB === undefined ? undefined : figures.budgetMiB + BUDGET_HEADROOM_MIB;
      const verdict = bound === undefined ? '' : peak - idle <= bound * 2 ** 20 ? 'PASS' : '**MISS**';
      return `| ${figures.store} | ${mib(idle)} | ${mib(peak)} | ${mib(peak - idle)} | ${bound === undefined ? '—' : `idle + ${bound} MiB`} | ${verdict} |`;
    }),
    '',
    'Every answer was right (the bench stops on a wrong one): no hit for the phrase matching nothing, exactly the three events written for the one matching a few.',
    '',
  ];
}

function exportSection(exports: ExportFigures[]): string[] {
  return [
    'Export of one conversation (one request, read whole by the bench):',
    '',
    '| store | format | size | time | MB/s | RSS before | peak RSS during |',
    '|---|---|---|---|---|---|---|',
    ...exports.map(
      (figures) =>
        `| ${figures.store} | ${figures.format} | ${mib(figures.bytes)} | ${figures.seconds.toFixed(2)} s | ${figures.megabytesPerSecond.toFixed(1)} | ${mib(figures.residentBeforeBytes)} | ${mib(figures.peakResidentBytes)} |`,
    ),
    '',
  ];
}
