/**
 * `npm run bench -- --proxy-only`: what the contract proxy (src/kit/proxy/proxy.ts) adds to a
 * request. Our compiled server serves a 300-event conversation; the compiled kit's proxy
 * forwards to it. One client asks for the same page directly and through the proxy in
 * turn, one request at a time, so both see the same machine; the figure is the difference
 * of the medians, for a page of 100 events and one of 20.
 */
import path from 'node:path';
import { findFreePort } from '../process/free-port';
import { spawnScript } from '../process/server-process';
import { type DatasetSpec, ensureDataset } from './datasets';
import { getOk, keepAliveAgent } from './http-get';
import { percentile } from './load';
import { searchPath } from './scenarios';
import { BENCH_HOST, spawnOurServer, waitUntilAnswering } from './server-process';

const CONVERSATION: DatasetSpec = { label: 'small', events: 300, seed: 'bench-small' };
const WARM_UP_REQUESTS = 100;
const MEASURED_REQUESTS = 500;

export interface ProxyOverheadRow {
  limit: number;
  directP50Ms: number;
  directP99Ms: number;
  proxiedP50Ms: number;
  proxiedP99Ms: number;
}

export async function measureProxyOverhead(
  options: { repoRoot: string; dataDirectory: string },
  progress: (line: string) => void,
): Promise<ProxyOverheadRow[]> {
  const root = path.join(options.dataDirectory, 'conversations');
  const dataset = ensureDataset(CONVERSATION, root, path.join(options.dataDirectory, 'markers'), progress);
  const logs = path.join(options.dataDirectory, 'logs');
  const server = await spawnOurServer('proxied', {
    repoRoot: options.repoRoot,
    conversationsRoot: root,
    validateResponses: false,
    nodeFlags: [],
    logFile: path.join(logs, 'proxied-server.log'),
  });
  const port = await findFreePort(BENCH_HOST);
  try {
    await waitUntilAnswering(server);
    const proxy = spawnScript('dist/src/cli/contract.js', ['proxy', '--target', server.baseUrl, '--port', String(port)], {
      projectRoot: options.repoRoot,
      compiled: true,
      label: 'contract proxy',
      logFile: path.join(logs, 'contract-proxy.log'),
    });
    try {
      const proxyUrl = `http://${BENCH_HOST}:${port}`;
      await waitUntilAnswering({ ...server, baseUrl: proxyUrl, label: 'contract proxy' });
      const rows: ProxyOverheadRow[] = [];
      for (const limit of [100, 20]) {
        progress(`proxy: a page of ${limit}, direct and through the proxy in turn`);
        const pathAndQuery = searchPath(dataset.conversationIdHex, { limit: String(limit) });
        rows.push(await inTurn(server.baseUrl + pathAndQuery, proxyUrl + pathAndQuery, limit));
      }
      return rows;
    } finally {
      await proxy.stop(5000);
    }
  } finally {
    await server.stop();
  }
}

async function inTurn(directUrl: string, proxiedUrl: string, limit: number): Promise<ProxyOverheadRow> {
  const direct: number[] = [];
  const proxied: number[] = [];
  const directAgent = keepAliveAgent();
  const proxiedAgent = keepAliveAgent();
  try {
    for (let i = 0; i < WARM_UP_REQUESTS + MEASURED_REQUESTS; i++) {
      const directMs = (await getOk(directUrl, directAgent)).elapsedMs;
      const proxiedMs = (await getOk(proxiedUrl, proxiedAgent)).elapsedMs;
      if (i < WARM_UP_REQUESTS) continue;
      direct.push(directMs);
      proxied.push(proxiedMs);
    }
  } finally {
    directAgent.destroy();
    proxiedAgent.destroy();
  }
  direct.sort((a, b) => a - b);
  proxied.sort((a, b) => a - b);
  return {
    limit,
    directP50Ms: percentile(direct, 0.5),
    directP99Ms: percentile(direct, 0.99),
    proxiedP50Ms: percentile(proxied, 0.5),
    proxiedP99Ms: percentile(proxied, 0.99),
  };
}

export function renderProxyOverhead(rows: readonly ProxyOverheadRow[]): string {
  const lines = rows.map(
    (row) =>
      `| ${row.limit} | ${row.directP50Ms.toFixed(2)} | ${row.proxiedP50Ms.toFixed(2)} | **+${(row.proxiedP50Ms - row.directP50Ms).toFixed(2)}** | ${row.directP99Ms.toFixed(2)} | ${row.proxiedP99Ms.toFixed(2)} |`,
  );
  return `### What the contract proxy adds (one request at a time, ${MEASURED_REQUESTS} each)

| page of | direct p50 ms | through the proxy p50 ms | added p50 ms (goal <= 1) | direct p99 ms | through the proxy p99 ms |
|--:|--:|--:|--:|--:|--:|
${lines.join('\n')}
`;
}
