/**
 * Cooperative scheduling for long loads: work runs in slices of a few milliseconds, and
 * between slices the event loop serves other requests. A 100k-event conversation takes
 * seconds to load; a request for another conversation must not wait for it.
 */

/** Resolves after the event loop has run its pending I/O callbacks and timers. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Resolves once the event loop has polled for I/O since the call, so that notifications
 * the kernel had queued by then (inotify) have been delivered. Two turns: called from an
 * I/O callback, the loop is already past this iteration's poll, and a first setImmediate
 * would run before the next one.
 */
export async function afterNextPoll(): Promise<void> {
  await yieldToEventLoop();
  await yieldToEventLoop();
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

/**
 * Passes each item's result to `consume` in input order, while up to `lookahead` later
 * items are already being produced (by worker threads, say). Stops starting items once
 * `stop` returns true. A failure of `produce` rejects the whole run when its item's turn
 * comes; failures of items never consumed are ignored.
 */
export async function consumeInOrder<T, R>(
  items: readonly T[],
  lookahead: number,
  produce: (item: T) => Promise<R>,
  consume: (item: T, result: R) => Promise<void>,
  stop: () => boolean,
): Promise<void> {
  // Only the results not yet consumed are kept: a consumed batch is garbage at once, rather
  // than held, with everything it decoded, until the whole load is over.
  const pending = new Map<number, Promise<R>>();
  let nextToStart = 0;
  for (let at = 0; at < items.length && !stop(); at++) {
    for (; nextToStart < items.length && nextToStart <= at + lookahead; nextToStart++) {
      const result = produce(items[nextToStart]!);
      result.catch(() => undefined);
      pending.set(nextToStart, result);
    }
    const result = pending.get(at)!;
    pending.delete(at);
    await consume(items[at]!, await result);
  }
}

/** Items sorted in one synchronous step: a run this long sorts well within a slice. */
const SORTED_RUN = 1024;

/**
 * A sorted copy of `items`, built in time slices: runs of SORTED_RUN sorted one at a
 * time, then merged pairwise. A large listing sorted in one step holds other requests
 * for as long. Stable, like Array.prototype.sort.
 */
export async function sortInSlices<T>(items: readonly T[], compare: (a: T, b: T) => number, slice: TimeSlice): Promise<T[]> {
  let sorted: T[] = [];
  for (let start = 0; start < items.length; start += SORTED_RUN) {
    sorted.push(...items.slice(start, start + SORTED_RUN).sort(compare));
    if (slice.isOver()) await slice.yield();
  }
  for (let width = SORTED_RUN; width < sorted.length; width *= 2) {
    const merged = new Array<T>(sorted.length);
    for (let left = 0; left < sorted.length; left += 2 * width) {
      await mergeRuns(sorted, merged, left, Math.min(left + width, sorted.length), Math.min(left + 2 * width, sorted.length), compare, slice);
    }
    sorted = merged;
  }
  return sorted;
}

/** Merges source[left, middle) and source[middle, end) into target[left, end). */
async function mergeRuns<T>(
  source: readonly T[],
  target: T[],
  left: number,
  middle: number,
  end: number,
  compare: (a: T, b: T) => number,
  slice: TimeSlice,
): Promise<void> {
  let a = left;
  let b = middle;
  for (let out = left; out < end; out++) {
    // `<= 0` takes from the left run on ties, which keeps the sort stable.
    target[out] = b >= end || (a < middle && compare(source[a]!, source[b]!) <= 0) ? source[a++]! : source[b++]!;
    if ((out & 1023) === 0 && slice.isOver()) await slice.yield();
  }
}
