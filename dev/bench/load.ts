/**
 * Load on loopback with autocannon, run in this process against a server in another.
 * Latencies are recorded here from autocannon's per-response event, because its own
 * histogram keeps whole milliseconds and the baseline answers in well under one.
 */
import autocannon from 'autocannon';
import { sessionKeyHeaders } from './session-key';

export interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  readonly durationSeconds: number;
  /** When set, each connection goes round these paths (path and query), one request each. */
  readonly rotatingPaths?: readonly string[];
}

export interface LoadFigures {
  /** Successful (2xx) responses per second over the run. */
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly successes: number;
  /** Non-2xx answers plus connection errors and timeouts: should be 0. */
  readonly failures: number;
}

export interface RunningLoad {
  /** Ends the run early; `figures` then resolves with what was measured so far. */
  stop(): void;
  readonly figures: Promise<LoadFigures>;
}

/** Starts a load run; see {@link runLoad} for one that just runs to its end. */
export function startLoad(options: LoadOptions): RunningLoad {
  const latencies: number[] = [];
  const started = performance.now();
  let instance: autocannon.Instance | undefined;
  const figures = new Promise<LoadFigures>((resolve, reject) => {
    instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        duration: options.durationSeconds,
        headers: sessionKeyHeaders(),
        requests: rotatingRequests(options.rotatingPaths),
      },
      (error: unknown, result: autocannon.Result) => {
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve(figuresOf(result, latencies, (performance.now() - started) / 1000));
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
  return { stop: () => instance?.stop(), figures };
}

/** Runs load for the whole duration and returns its figures. */
export function runLoad(options: LoadOptions): Promise<LoadFigures> {
  return startLoad(options).figures;
}

function figuresOf(result: autocannon.Result, latencies: number[], elapsedSeconds: number): LoadFigures {
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / elapsedSeconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    maxMs: latencies[latencies.length - 1] ?? Number.NaN,
    successes: latencies.length,
    // autocannon counts timeouts among its errors.
    failures: result.non2xx + result.errors,
  };
}

/** Nearest-rank percentile of an ascending list; NaN when it is empty. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(fraction * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

/** One request description that sets the next path on every request (autocannon's `setupRequest`). */
function rotatingRequests(paths: readonly string[] | undefined): autocannon.Request[] | undefined {
  if (!paths) return undefined;
  let next = 0;
  return [
    {
      setupRequest: (request: autocannon.Request) => {
        const path = paths[next]!;
        next = (next + 1) % paths.length;
        return { ...request, path };
      },
    },
  ];
}
