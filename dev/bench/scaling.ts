/**
 * How cost grows: one conversation of 1k, 10k and 100k events, and 10, 100 and 1000
 * conversations of 200 events, each on a fresh server: the time to open (spawn to the
 * first answer for one conversation; the first request to each, one after another, for
 * many), the resident memory then, and the first page's latency once loaded. Plus the
 * memory-budget run over the 1000 conversations (many-conversations.ts).
 */
import path from 'node:path';
import { processMemory } from '../process/server-process';
import { type DatasetSpec, ensureDataset, sizeOnDisk } from './datasets';
import { keepAliveAgent, getOk } from './http-get';
import { percentile } from './load';
import { type ManyConversationsData, type ManyConversationsFigures, ensureManyConversations, measureManyConversations } from './many-conversations';
import { bringIntoPageCache } from './read-floor';
import { searchPath } from './scenarios';
import { type OurServerOptions, type ServerProcess, spawnOurServer, waitUntilAnswering, withServer } from './server-process';

export interface ScalingRow {
  readonly label: string;
  readonly conversations: number;
  readonly eventsEach: number;
  readonly diskBytes: number;
  /** One conversation: spawn to its first answer, minus the process's own start. Many: the first request to each, one after another. */
  readonly openMs: number;
  readonly idleResidentBytes: number;
  readonly loadedResidentBytes: number;
  /** First page (limit 100) of a loaded conversation, one request at a time. */
  readonly firstPageP50Ms: number;
}

export interface ScalingResults {
  readonly rows: readonly ScalingRow[];
  readonly budget: ManyConversationsFigures;
}

export const BUDGET_MIB = 64;
const MANY = { count: 1000, eventsEach: 200 };
const SINGLE_SIZES: readonly DatasetSpec[] = [
  { label: '1k', events: 1_000, seed: 'bench-1k' },
  { label: '10k', events: 10_000, seed: 'bench-10k' },
  { label: '100k', events: 100_000, seed: 'bench-100k' },
];
const MANY_COUNTS = [10, 100, 1000];
const FIRST_PAGE_SAMPLES = 200;
const SETTLE_MS = 500;

export interface ScalingOptions {
  readonly dataDirectory: string;
  readonly serverOptions: (name: string) => Omit<OurServerOptions, 'validateResponses' | 'conversationsRoot'>;
  readonly randomSeconds: number;
}

export async function measureScaling(options: ScalingOptions, progress: (line: string) => void): Promise<ScalingResults> {
  const conversationsRoot = path.join(options.dataDirectory, 'conversations');
  const markers = path.join(options.dataDirectory, 'markers');
  const many = ensureManyConversations(MANY, path.join(options.dataDirectory, 'many'), progress);
  const start = (name: string, root: string, serverArgs: string[] = []) =>
    spawnOurServer(name, { ...options.serverOptions(name), conversationsRoot: root, validateResponses: false, serverArgs });

  const rows: ScalingRow[] = [];
  for (const spec of SINGLE_SIZES) {
    const dataset = ensureDataset(spec, conversationsRoot, markers, progress);
    progress(`scaling: one conversation of ${spec.label}`);
    bringIntoPageCache(dataset.directory);
    rows.push(
      await withServer(start(`scaling-${spec.label}`, conversationsRoot), async (server) => {
        const readyMs = await waitUntilAnswering(server);
        const idle = processMemory(server.pid).residentBytes;
        const page = searchPath(dataset.conversationIdHex, { limit: '100' });
        await getOk(server.baseUrl + page);
        const openMs = performance.now() - server.spawnedAt - readyMs;
        await settle();
        const loaded = processMemory(server.pid).residentBytes;
        return {
          label: spec.label,
          conversations: 1,
          eventsEach: spec.events,
          diskBytes: sizeOnDisk(dataset.directory),
          openMs,
          idleResidentBytes: idle,
          loadedResidentBytes: loaded,
          firstPageP50Ms: await firstPageP50(server, [page]),
        };
      }),
    );
  }
  for (const count of MANY_COUNTS) {
    progress(`scaling: ${count} conversations of ${MANY.eventsEach} events`);
    bringManyIntoPageCache(many, count);
    rows.push(
      await withServer(start(`scaling-${count}-conversations`, many.root), async (server) => {
        const figures = await measureManyConversations(server, many, { count, budgetMiB: undefined, randomClients: 0, randomSeconds: 0 });
        await settle();
        const pages = [...many.ids.keys()].slice(0, count).map((hex) => searchPath(hex, { limit: '100' }));
        return {
          label: `${count} x ${MANY.eventsEach}`,
          conversations: count,
          eventsEach: MANY.eventsEach,
          diskBytes: figures.data.diskBytes,
          openMs: figures.firstRequests.totalMs,
          idleResidentBytes: figures.idleMemory.residentBytes,
          loadedResidentBytes: processMemory(server.pid).residentBytes,
          firstPageP50Ms: await firstPageP50(server, pages),
        };
      }),
    );
  }
  progress(`memory budget: ${MANY.count} conversations, --memory-budget-mb ${BUDGET_MIB}`);
  bringManyIntoPageCache(many, MANY.count);
  const budget = await withServer(start('budget', many.root, ['--memory-budget-mb', String(BUDGET_MIB)]), (server) =>
    measureManyConversations(server, many, { count: MANY.count, budgetMiB: BUDGET_MIB, randomClients: 4, randomSeconds: options.randomSeconds }),
  );
  return { rows, budget };
}

/** p50 of first pages asked one at a time, going round `paths`. */
async function firstPageP50(server: ServerProcess, paths: readonly string[]): Promise<number> {
  const agent = keepAliveAgent();
  const latencies: number[] = [];
  for (let i = 0; i < FIRST_PAGE_SAMPLES; i++) latencies.push((await getOk(server.baseUrl + paths[i % paths.length]!, agent)).elapsedMs);
  agent.destroy();
  return percentile(
    latencies.sort((a, b) => a - b),
    0.5,
  );
}

function bringManyIntoPageCache(many: ManyConversationsData, count: number): void {
  for (const hex of [...many.ids.keys()].slice(0, count)) bringIntoPageCache(path.join(many.root, hex));
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
