/**
 * Asks V8 for a full collection, started in the background. The memory budget drops
 * conversations whose bytes live outside V8's heap (slabs, typed arrays), and V8 frees
 * those only in a full collection, which it starts by itself once about 64 MB of such
 * memory has piled up since the last one: under a small budget that alone can double what
 * the process holds. The budget calls this after dropping a share of it, so what was dropped
 * is given back soon.
 *
 * The collector is reached the way Node documents for `v8.setFlagsFromString`: the
 * `--expose-gc` flag set at run time, and `gc` taken from a new context. Where that
 * fails, nothing is asked and V8 collects on its own schedule.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collector = (options: { type: 'major'; execution: 'async' }) => void;

let collector: Collector | null | undefined;

export function collectGarbageSoon(): void {
  collector ??= exposedCollector();
  collector?.({ type: 'major', execution: 'async' });
}

function exposedCollector(): Collector | null {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as Collector) : null;
  } catch {
    return null;
  }
}
