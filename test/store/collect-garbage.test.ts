import { PerformanceObserver, constants } from 'node:perf_hooks';
import { collectGarbageSoon } from '../../src/store/directory/memory/collect-garbage';
import { eventually } from '../support/eventually';

/*
 * The memory budget asks V8 for a full collection after dropping conversations, so their
 * bytes outside the heap are given back soon rather than after 64 MB more have piled up.
 */
it('starts a full collection when asked', async () => {
  const kinds: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) kinds.push((entry as unknown as { detail: { kind: number } }).detail.kind);
  });
  observer.observe({ entryTypes: ['gc'] });
  try {
    collectGarbageSoon();
    // Started in the background: the full collection ends on a later turn of the event loop.
    await eventually(async () => expect(kinds).toContain(constants.NODE_PERFORMANCE_GC_MAJOR), { withinMs: 5000 });
  } finally {
    observer.disconnect();
  }
});
