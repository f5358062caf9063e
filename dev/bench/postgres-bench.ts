/**
 * `npm run bench -- --store postgres`: the PostgreSQL store beside the directory store on
 * the same data, one conversation of 100k events (10k with --quick) or, with
 * --many-conversations, 1M events over 1000 conversations. A durable throwaway cluster
 * (fsync on) is filled by the ingester (its rate is the first figure), then a server on each
 * store answers the same requests on one conversation: first and deep page, a body that
 * matches nothing, a count (p50 of sequential requests), and first-page throughput under load.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createMemoryLogger } from '../../src/log';
import type { ScriptProcess } from '../process/server-process';
import { createPool } from '../../src/store/postgres/connection';
import { ingestConversations } from '../../src/store/ingest/ingester';
import { migrate } from '../../src/store/postgres/migrations';
import { postgresDatabase } from '../../src/store/postgres/postgres-database';
import { startLocalCluster } from '../postgres/local-cluster';
import { ensureDataset } from './datasets';
import { ensureManyConversations, manyConversationHex } from './many-conversations';
import { getOk, keepAliveAgent } from './http-get';
import { startCompiledServer } from './server-process';
import { percentile, runLoad } from './load';

export interface PostgresBenchOptions {
  readonly quick: boolean;
  /** 1M events over 1000 conversations instead of one conversation. */
  readonly manyConversations: boolean;
  readonly dataDirectory: string;
}

/** The conversation the requests go to: its id and the cursor of a full page near its end. */
interface Measured {
  readonly hex: string;
  readonly deepPageId: string;
}

interface StoreFigures {
  firstPageP50Ms: number;
  deepPageP50Ms: number;
  bodyNoMatchP50Ms: number;
  countP50Ms: number;
  firstPageRequestsPerSecond: number;
}

export interface PostgresBenchResults {
  /** What was ingested, in words: "100000 events in one conversation". */
  data: string;
  events: number;
  ingestEventsPerSecond: number;
  ingestSeconds: number;
  directory: StoreFigures;
  postgres: StoreFigures;
}

const SEQUENTIAL_REQUESTS = 200;

export async function runPostgresBench(options: PostgresBenchOptions, progress: (line: string) => void): Promise<PostgresBenchResults> {
  const { root, measured, data } = options.manyConversations ? manyConversationsData(options, progress) : oneConversationData(options, progress);

  progress('postgres: starting a durable throwaway cluster');
  const cluster = await startLocalCluster({ durable: true });
  const servers: ScriptProcess[] = [];
  try {
    const logger = createMemoryLogger();
    const pool = createPool(cluster.url, logger);
    const started = performance.now();
    const summary = await migrate(pool).then(() =>
      ingestConversations({
        root,
        database: postgresDatabase(pool),
        logger,
        onProgress: (p) => progress(`postgres: ingest ${p.filesDone}/${p.filesTotal}`),
      }),
    );
    const ingestSeconds = (performance.now() - started) / 1000;
    await pool.query('VACUUM ANALYZE events');
    await pool.end();
    progress(`postgres: ingested ${summary.eventsStored} events in ${ingestSeconds.toFixed(1)} s`);

    const directoryUrl = (await startCompiledServer(servers, ['--conversations-path', root])).url;
    const postgresUrl = (await startCompiledServer(servers, ['--database-url', cluster.url])).url;
    progress('postgres: directory server loading the conversation');
    await getOk(`${directoryUrl}${searchPath(measured, 'limit=1')}`);
    return {
      data,
      events: summary.eventsStored,
      ingestEventsPerSecond: summary.eventsStored / ingestSeconds,
      ingestSeconds,
      directory: await measure(directoryUrl, measured, options.quick, progress),
      postgres: await measure(postgresUrl, measured, options.quick, progress),
    };
  } finally {
    await Promise.all(servers.map((server) => server.stop(5000)));
    await cluster.stop();
  }
}

function oneConversationData(options: PostgresBenchOptions, progress: (line: string) => void): { root: string; measured: Measured; data: string } {
  const spec = options.quick ? { label: '10k', events: 10_000, seed: 'bench-10k' } : { label: '100k', events: 100_000, seed: 'bench-100k' };
  // A root of its own, so the ingest reads this conversation only.
  const root = path.join(options.dataDirectory, 'postgres', 'conversations');
  mkdirSync(root, { recursive: true });
  const dataset = ensureDataset(spec, root, path.join(options.dataDirectory, 'postgres', 'markers'), progress);
  return {
    root,
    measured: { hex: dataset.conversationIdHex, deepPageId: dataset.facts.deepPageId },
    data: `${spec.events} events in one conversation`,
  };
}

const MANY = { count: 1000, eventsEach: 1000 };
/** How far from the end of the measured conversation the deep page's cursor is: a full page and more after it. */
const DEEP_PAGE_FROM_END = 150;

function manyConversationsData(options: PostgresBenchOptions, progress: (line: string) => void): { root: string; measured: Measured; data: string } {
  const many = ensureManyConversations(MANY, path.join(options.dataDirectory, 'postgres-many'), progress);
  const hex = manyConversationHex(MANY.count / 2);
  const ids = many.ids.get(hex)!;
  return {
    root: many.root,
    measured: { hex, deepPageId: ids[ids.length - DEEP_PAGE_FROM_END]! },
    data: `${MANY.count * MANY.eventsEach} events over ${MANY.count} conversations`,
  };
}

function searchPath(measured: Measured, query: string): string {
  return `/api/conversations/${measured.hex}/events/search?${query}`;
}

async function measure(url: string, measured: Measured, quick: boolean, progress: (line: string) => void): Promise<StoreFigures> {
  progress(`postgres: measuring ${url}`);
  const p50 = async (pathAndQuery: string) => {
    const agent = keepAliveAgent();
    const times: number[] = [];
    for (let i = 0; i < SEQUENTIAL_REQUESTS; i++) times.push((await getOk(url + pathAndQuery, agent)).elapsedMs);
    agent.destroy();
    return percentile(
      times.sort((a, b) => a - b),
      0.5,
    );
  };
  const firstPage = searchPath(measured, 'limit=100');
  return {
    firstPageP50Ms: await p50(firstPage),
    deepPageP50Ms: await p50(searchPath(measured, `limit=100&page_id=${measured.deepPageId}`)),
    bodyNoMatchP50Ms: await p50(searchPath(measured, 'body=zqxjkvw%20no%20such%20text')),
    countP50Ms: await p50(`/api/conversations/${measured.hex}/events/count`),
    firstPageRequestsPerSecond: (await runLoad({ url: url + firstPage, connections: 10, durationSeconds: quick ? 5 : 15 })).requestsPerSecond,
  };
}

/** The figures as a Markdown section, with the targets of issue 15 judged. */
export function renderPostgresReport(results: PostgresBenchResults, when: Date): string {
  const row = (name: string, pick: (figures: StoreFigures) => number, unit: string) =>
    `| ${name} | ${pick(results.directory).toFixed(unit === 'req/s' ? 0 : 2)} ${unit} | ${pick(results.postgres).toFixed(unit === 'req/s' ? 0 : 2)} ${unit} |`;
  const throughputRatio = results.postgres.firstPageRequestsPerSecond / results.directory.firstPageRequestsPerSecond;
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  return [
    `## PostgreSQL store, ${when.toISOString()} (${results.data}; requests to one conversation)`,
    '',
    `Ingest: ${Math.round(results.ingestEventsPerSecond)} events/s (${results.ingestSeconds.toFixed(1)} s, fsync on).`,
    '',
    '| figure | directory store | PostgreSQL store |',
    '|---|---|---|',
    row('first page p50', (f) => f.firstPageP50Ms, 'ms'),
    row('deep page p50', (f) => f.deepPageP50Ms, 'ms'),
    row('body matching nothing p50', (f) => f.bodyNoMatchP50Ms, 'ms'),
    row('count p50', (f) => f.countP50Ms, 'ms'),
    row('first page throughput (10 connections)', (f) => f.firstPageRequestsPerSecond, 'req/s'),
    '',
    `Targets: ingest >= 5000 events/s ${verdict(results.ingestEventsPerSecond >= 5000)}; ` +
      `deep page <= 1.5x first ${verdict(results.postgres.deepPageP50Ms <= 1.5 * results.postgres.firstPageP50Ms)}; ` +
      `body matching nothing < 50 ms ${verdict(results.postgres.bodyNoMatchP50Ms < 50)}; ` +
      `first-page throughput >= 0.5x the directory store ${verdict(throughputRatio >= 0.5)} (${throughputRatio.toFixed(2)}x).`,
    '',
  ].join('\n');
}
