/**
 * `npm run bench -- [--quick] [--scaling-only] [--proxy-only] [--against REF] [--profile] [--no-record] [--session-api-key KEY]`
 * Measures our server against a bare node:http baseline serving the same bytes, prints the
 * report and appends it to bench/RESULTS.md. Exit code 0 whether targets PASS or MISS (they
 * are findings, not failures); 1 when the benchmark itself could not run; 2 for bad flags.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { UnknownRefError, renderAgainstRef, runAgainstRef } from './against-ref';
import { renderCrossSearchReport, runCrossSearchBench } from './cross-search';
import { runIndexStoreBench } from './index-store';
import { type PostgresBenchOptions, renderPostgresReport, runPostgresBench } from './postgres-bench';
import { DEFAULT_LIVE_DELIVERY, measureLiveDelivery, renderLiveDelivery } from './live-delivery';
import { measureProxyOverhead, renderProxyOverhead } from './proxy-overhead';
import { appendToResultsLog, renderReport, scalingSection } from './report';
import { SCALING_RANDOM_SECONDS, runBenchmark } from './run';
import { measureScaling } from './scaling';
import { budgetTargets, checkTargets } from './targets';
import { DEFAULT_STALLED_READERS, measureStalledReaders, renderStalledReaders } from './stalled-readers';
import { startLocalCluster } from '../postgres/local-cluster';

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_BAD_ARGUMENTS = 2;

const REPO_ROOT = path.resolve(__dirname, '../..');
const DATA_DIRECTORY = path.join(REPO_ROOT, 'bench/data');
const RESULTS_LOG = path.join(REPO_ROOT, 'bench/RESULTS.md');

const POSTGRES_RESULTS_LOG = path.join(REPO_ROOT, 'bench/RESULTS-postgres.md');
const CROSS_SEARCH_RESULTS_LOG = path.join(REPO_ROOT, 'bench/RESULTS-cross-search.md');

const USAGE = `usage: npm run bench -- [--quick] [--scaling-only] [--live-only] [--proxy-only] [--against REF] [--profile] [--no-record] [--session-api-key KEY] [--store postgres [--many-conversations]]
  --quick      10k events only and shorter load runs (under two minutes)
  --scaling-only
               only how cost grows (1k to 100k events, 10 to 1000 conversations) and the
               memory budget over 1000 conversations; printed, never recorded
  --live-only  100 readers of one conversation while 200 events/s are appended: over the
               events socket and by polling the search, side by side; then 50 sockets that
               never read, and the server's memory while they are closed (bench/RESULTS.md)
  --proxy-only what the contract proxy adds to a request (agent-server-contract proxy);
               printed, never recorded
  --against REF
               before and after in one run: REF (commit, branch or tag) built in a temporary
               git worktree, its server and this checkout's in alternating rounds on the 10k
               (--quick) or 10k and 100k conversation: first page, another cursor on every
               request, cold open, memory at the first page, as ratios (bench/RESULTS.md)
  --profile    run our servers with --cpu-prof; profiles go to bench/data/profiles
  --no-record  print the report without appending it to bench/RESULTS.md
  --store postgres
               the PostgreSQL store beside the directory store instead (bench/RESULTS-postgres.md);
               with --live-only, the live delivery from a PostgreSQL server a following ingester fills
  --many-conversations
               with --store postgres: 1M events over 1000 conversations instead of one of 100k
  --index-store [--conversations N] [--events-per-conversation N] [--long-events N] [--long-starts N] [--against REF] [--reference]
               the SQLite index store: first start, restart, searches across conversations,
               one long conversation (--long-events 0: none), peak memory (bench/RESULTS.md; default
               2000 x 250 and 100k); --conversations 0: the long conversation's first index alone;
               --long-starts N: its first index is the median of N starts on a new index (default 5);
               with --against, REF built in a temporary worktree measured after this checkout;
               with --reference, then the reference agent server on the same conversations
  --cross-search [--sqlite-only]
               only the search across stored conversations (1000 conversations of 200 events
               on the SQLite index, with and without a 64 MiB budget, and each server's memory
               against the budget's bound; 1M events on PostgreSQL) and the export of 100k
               events (bench/RESULTS-cross-search.md); --sqlite-only: the SQLite index's
               search alone
  --session-api-key KEY
               run our server with this session key (or set SESSION_API_KEY) and send it
`;

async function main(): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: process.argv.slice(2),
      options: {
        quick: { type: 'boolean', default: false },
        'scaling-only': { type: 'boolean', default: false },
        'proxy-only': { type: 'boolean', default: false },
        'live-only': { type: 'boolean', default: false },
        profile: { type: 'boolean', default: false },
        'no-record': { type: 'boolean', default: false },
        'session-api-key': { type: 'string' },
        store: { type: 'string' },
        'many-conversations': { type: 'boolean', default: false },
        'cross-search': { type: 'boolean', default: false },
        'sqlite-only': { type: 'boolean', default: false },
        'index-store': { type: 'boolean', default: false },
        conversations: { type: 'string' },
        'events-per-conversation': { type: 'string' },
        'long-events': { type: 'string' },
        'long-starts': { type: 'string' },
        against: { type: 'string' },
        reference: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${USAGE}`);
    return EXIT_BAD_ARGUMENTS;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return EXIT_OK;
  }

  if (values['index-store']) {
    const longStarts = Number(values['long-starts'] ?? 5);
    if (!Number.isSafeInteger(longStarts) || longStarts < 1) {
      process.stderr.write(`bench: --long-starts takes a whole number of starts, 1 or more (got ${values['long-starts']})\n`);
      return EXIT_BAD_ARGUMENTS;
    }
    try {
      const report = await runIndexStoreBench({
        conversations: Number(values.conversations ?? 2000),
        eventsPerConversation: Number(values['events-per-conversation'] ?? 250),
        longEvents: Number(values['long-events'] ?? 100_000),
        longStarts,
        against: values.against === undefined ? undefined : { ref: values.against, repoRoot: REPO_ROOT, logs: path.join(DATA_DIRECTORY, 'logs') },
        reference: values.reference,
        progress: (line) => process.stderr.write(`${line}\n`),
      });
      process.stdout.write(`${report}\n`);
      if (!values['no-record']) appendToResultsLog(RESULTS_LOG, report);
      return EXIT_OK;
    } catch (error) {
      process.stderr.write(
        `bench: the index store could not be measured: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      return EXIT_FAILED;
    }
  }

  if (values['cross-search']) {
    try {
      const results = await runCrossSearchBench(
        { quick: values.quick, repoRoot: REPO_ROOT, dataDirectory: DATA_DIRECTORY, sqliteOnly: values['sqlite-only'] },
        (line) => process.stderr.write(`${line}\n`),
      );
      const report = renderCrossSearchReport(results);
      process.stdout.write(`${report}\n`);
      if (!values['no-record']) appendToResultsLog(CROSS_SEARCH_RESULTS_LOG, report);
      return EXIT_OK;
    } catch (error) {
      process.stderr.write(
        `bench: the search across conversations could not be measured: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      return EXIT_FAILED;
    }
  }

  if (values.store !== undefined) {
    if (values.store !== 'postgres') {
      process.stderr.write(`bench: --store takes only postgres, got ${JSON.stringify(values.store)}\n\n${USAGE}`);
      return EXIT_BAD_ARGUMENTS;
    }
    if (values['live-only']) return benchPostgresLive(!values['no-record']);
    return benchPostgres(
      { quick: values.quick, manyConversations: values['many-conversations'], dataDirectory: DATA_DIRECTORY },
      !values['no-record'],
    );
  }

  // Spawned servers inherit the environment, so this is how they learn the key.
  if (values['session-api-key']) process.env['SESSION_API_KEY'] = values['session-api-key'];

  const profileFlags = ['--cpu-prof', `--cpu-prof-dir=${path.join(DATA_DIRECTORY, 'profiles')}`];
  const serverNodeFlags = values.profile ? profileFlags : [];
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  try {
    if (values['live-only']) {
      const report =
        renderLiveDelivery(
          await measureLiveDelivery({ ...DEFAULT_LIVE_DELIVERY, repoRoot: REPO_ROOT, dataDirectory: DATA_DIRECTORY }, progress),
          new Date(),
        ) +
        '\n' +
        renderStalledReaders(
          await measureStalledReaders({ ...DEFAULT_STALLED_READERS, repoRoot: REPO_ROOT, dataDirectory: DATA_DIRECTORY }, progress),
          new Date(),
        );
      process.stdout.write(`\n${report}`);
      if (!values['no-record']) appendToResultsLog(RESULTS_LOG, report);
      return EXIT_OK;
    }
    if (values.against !== undefined) {
      const results = await runAgainstRef(
        { ref: values.against, quick: values.quick, repoRoot: REPO_ROOT, dataDirectory: DATA_DIRECTORY, serverNodeFlags },
        progress,
      );
      const report = renderAgainstRef(results);
      process.stdout.write(`\n${report}`);
      if (!values['no-record']) appendToResultsLog(RESULTS_LOG, report);
      return EXIT_OK;
    }
    if (values['proxy-only']) {
      const rows = await measureProxyOverhead({ repoRoot: REPO_ROOT, dataDirectory: DATA_DIRECTORY }, progress);
      process.stdout.write(`\n${renderProxyOverhead(rows)}`);
      return EXIT_OK;
    }
    if (values['scaling-only']) {
      const scaling = await measureScaling(
        {
          dataDirectory: DATA_DIRECTORY,
          serverOptions: (name) => ({ repoRoot: REPO_ROOT, nodeFlags: serverNodeFlags, logFile: path.join(DATA_DIRECTORY, 'logs', `${name}.log`) }),
          randomSeconds: SCALING_RANDOM_SECONDS,
        },
        progress,
      );
      const judged = budgetTargets(scaling).map(
        (target) => `- ${target.name}: ${target.measured} (goal ${target.goal}): ${target.pass ? 'PASS' : 'MISS'}`,
      );
      process.stdout.write(`\n${scalingSection(scaling)}\n${judged.join('\n')}\n`);
      return EXIT_OK;
    }
    const results = await runBenchmark({ quick: values.quick, repoRoot: REPO_ROOT, dataDirectory: DATA_DIRECTORY, serverNodeFlags }, progress);
    const report = renderReport(results, checkTargets(results));
    process.stdout.write(`\n${report}`);
    if (!values['no-record']) {
      appendToResultsLog(RESULTS_LOG, report);
      process.stderr.write(`\nappended to ${path.relative(process.cwd(), RESULTS_LOG)}\n`);
    }
    return EXIT_OK;
  } catch (error) {
    if (error instanceof UnknownRefError) {
      process.stderr.write(`bench: ${error.message}\n`);
      return EXIT_BAD_ARGUMENTS;
    }
    process.stderr.write(`bench: the benchmark could not finish: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_FAILED;
  }
}

/** `--live-only --store postgres`: the live delivery from a PostgreSQL server that a following ingester fills. */
async function benchPostgresLive(record: boolean): Promise<number> {
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  try {
    progress('postgres: starting a durable throwaway cluster');
    const cluster = await startLocalCluster({ durable: true });
    try {
      const results = await measureLiveDelivery(
        { ...DEFAULT_LIVE_DELIVERY, repoRoot: REPO_ROOT, dataDirectory: DATA_DIRECTORY, databaseUrl: cluster.url },
        progress,
      );
      const report = renderLiveDelivery(results, new Date(), 'postgres');
      process.stdout.write(`\n${report}`);
      if (record) appendToResultsLog(POSTGRES_RESULTS_LOG, report);
    } finally {
      await cluster.stop();
    }
    return EXIT_OK;
  } catch (error) {
    process.stderr.write(
      `bench: the live delivery from PostgreSQL could not finish: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT_FAILED;
  }
}

async function benchPostgres(options: PostgresBenchOptions, record: boolean): Promise<number> {
  try {
    const results = await runPostgresBench(options, (line) => process.stderr.write(`${line}\n`));
    const report = renderPostgresReport(results, new Date());
    process.stdout.write(`\n${report}`);
    if (record) {
      if (!existsSync(POSTGRES_RESULTS_LOG))
        writeFileSync(
          POSTGRES_RESULTS_LOG,
          '# PostgreSQL store: benchmark runs\n\nAppended by `npm run bench -- --store postgres`; figures from a shared machine are noisy.\n',
        );
      appendToResultsLog(POSTGRES_RESULTS_LOG, report);
    }
    return EXIT_OK;
  } catch (error) {
    process.stderr.write(
      `bench: the PostgreSQL benchmark could not finish: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT_FAILED;
  }
}

void main().then((code) => {
  // Exit explicitly: a server process or socket left behind by a failure must not keep the run alive.
  process.exit(code);
});
