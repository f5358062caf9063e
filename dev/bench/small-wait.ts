/**
 * Whether one big conversation loading holds up everyone else: a fresh server is asked for
 * the big conversation, and while that load runs, a few clients keep asking for a small
 * conversation that is already loaded. Their worst wait is the figure.
 */
import type { Dataset } from './datasets';
import { getOk, keepAliveAgent, timedGet } from './http-get';
import { percentile } from './load';
import { searchPath } from './scenarios';
import { type ServerProcess, waitUntilAnswering } from './server-process';

export interface SmallWaitFigures {
  /** How long the big conversation's first search took, measured from the request. */
  readonly bigOpenMs: number;
  readonly smallRequests: number;
  readonly smallP50Ms: number;
  readonly smallP99Ms: number;
  readonly smallMaxMs: number;
}

/** Measures on a server spawned for this alone, so the big conversation is not loaded yet. */
export async function measureSmallWaitDuringOpen(server: ServerProcess, big: Dataset, small: Dataset, clients: number): Promise<SmallWaitFigures> {
  await waitUntilAnswering(server);
  const smallUrl = server.baseUrl + searchPath(small.conversationIdHex, { limit: '100' });
  // Loaded beforehand: the figure is about waiting for the big load, not loading the small one.
  await getOk(smallUrl);

  const started = performance.now();
  let bigDone = false;
  // Settled into a value at once, so a failure is reported after the small clients stop, not as an unhandled rejection.
  const bigAnswer = getOk(server.baseUrl + searchPath(big.conversationIdHex, { limit: '100' }))
    .then(
      () => ({ ok: true as const, at: performance.now() }),
      (error: unknown) => ({ ok: false as const, error }),
    )
    .finally(() => {
      bigDone = true;
    });
  const latencies = (await Promise.all(Array.from({ length: clients }, () => askUntil(smallUrl, () => bigDone)))).flat();
  const bigResult = await bigAnswer;
  if (!bigResult.ok) throw bigResult.error;
  const bigOpenMs = bigResult.at - started;

  latencies.sort((a, b) => a - b);
  return {
    bigOpenMs,
    smallRequests: latencies.length,
    smallP50Ms: percentile(latencies, 0.5),
    smallP99Ms: percentile(latencies, 0.99),
    smallMaxMs: latencies[latencies.length - 1] ?? Number.NaN,
  };
}

async function askUntil(url: string, done: () => boolean): Promise<number[]> {
  const agent = keepAliveAgent();
  const latencies: number[] = [];
  try {
    while (!done()) {
      const response = await timedGet(url, agent);
      if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status} while the big conversation loaded.`);
      latencies.push(response.elapsedMs);
    }
    return latencies;
  } finally {
    agent.destroy();
  }
}
