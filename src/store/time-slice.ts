/**
 * Cooperative scheduling for long loads: work runs in slices of a few milliseconds, and
 * between slices the event loop serves other requests. A 100k-event conversation takes
 * seconds to load; a request for another conversation must not wait for it.
 */

/** Resolves after the event loop has run its pending I/O callbacks and timers. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Tracks how long the current synchronous stretch has run against a budget. */
export class TimeSlice {
  private started = performance.now();

  constructor(private readonly budgetMs: number) {}

  /** True once this slice has used its budget. Checked per item, so it costs no await. */
  isOver(): boolean {
    return performance.now() - this.started >= this.budgetMs;
  }

  /** Lets the event loop run, then starts a new slice. */
  async yield(): Promise<void> {
    await yieldToEventLoop();
    this.started = performance.now();
  }
}

/**
 * Runs `task` over `items` with at most `limit` tasks in flight, keeping results in
 * input order. Tasks are expected not to throw (they return failures as values).
 */
export async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const at = next++;
      results[at] = await task(items[at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
