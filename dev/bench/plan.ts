/** How big and how long a benchmark run is: the full run, or the quick one for a first look. */
import type { DatasetSpec } from './datasets';
import type { LoadShape } from './side-by-side';

export interface BenchPlan {
  readonly mode: 'quick' | 'full';
  /** Conversations put under load, smallest first; the last one is the run's main conversation. */
  readonly conversations: readonly DatasetSpec[];
  /** The other conversation asked for while the main one loads. */
  readonly small: DatasetSpec;
  readonly load: LoadShape;
  readonly appendCount: number;
  readonly appendTimeoutMs: number;
  /** Clients asking for the small conversation at the same time. */
  readonly smallWaitClients: number;
}

const SMALL: DatasetSpec = { label: 'small', events: 300, seed: 'bench-small' };
const TEN_K: DatasetSpec = { label: '10k', events: 10_000, seed: 'bench-10k' };
const HUNDRED_K: DatasetSpec = { label: '100k', events: 100_000, seed: 'bench-100k' };

// 16 connections keep both servers saturated on 2 cores without measuring mostly queueing.
const CONNECTIONS = 16;

export function benchPlan(quick: boolean): BenchPlan {
  return quick
    ? {
        mode: 'quick',
        conversations: [TEN_K],
        small: SMALL,
        load: { connections: CONNECTIONS, durationSeconds: 2, warmupSeconds: 1 },
        appendCount: 1_000,
        appendTimeoutMs: 20_000,
        smallWaitClients: 2,
      }
    : {
        mode: 'full',
        conversations: [TEN_K, HUNDRED_K],
        small: SMALL,
        load: { connections: CONNECTIONS, durationSeconds: 5, warmupSeconds: 1 },
        appendCount: 1_000,
        appendTimeoutMs: 30_000,
        smallWaitClients: 2,
      };
}
