import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { TimeSlice, consumeInOrder, sortInSlices } from '../../src/store/files/time-slice';

describe('sortInSlices', () => {
  const byKey = (a: { key: number }, b: { key: number }) => a.key - b.key;

  it.each([0, 1, 1023, 1024, 1025, 5000, 20_000])('sorts %i items as Array.prototype.sort does, ties in input order', async (count) => {
    const items = Array.from({ length: count }, (_, i) => ({ key: (i * 7919) % 97, order: i }));

    const sorted = await sortInSlices(items, byKey, new TimeSlice(0));

    expect(sorted).toEqual([...items].sort(byKey));
  });

  it('lets other work run while it sorts', async () => {
    const items = Array.from({ length: 50_000 }, (_, i) => ({ key: (i * 7919) % 50_000 }));
    let ranMeanwhile = 0;
    const other = setInterval(() => ranMeanwhile++, 0);

    await sortInSlices(items, byKey, new TimeSlice(0));
    clearInterval(other);

    expect(ranMeanwhile).toBeGreaterThan(0);
  });
});

describe('consumeInOrder', () => {
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('consumes in input order, while up to `lookahead` later items are being produced', async () => {
    const finish = new Map<number, () => void>();
    const started: number[] = [];
    const consumed: number[] = [];
    const produce = (item: number) =>
      new Promise<number>((resolve) => {
        started.push(item);
        finish.set(item, () => resolve(item * 10));
      });

    const run = consumeInOrder(
      [0, 1, 2, 3, 4],
      2,
      produce,
      async (_item, result) => void consumed.push(result),
      () => false,
    );
    await settle();
    expect(started).toEqual([0, 1, 2]);

    finish.get(2)!();
    finish.get(1)!();
    await settle();
    expect(consumed).toEqual([]);

    finish.get(0)!();
    await settle();
    expect(consumed).toEqual([0, 10, 20]);
    expect(started).toEqual([0, 1, 2, 3, 4]);

    finish.get(3)!();
    finish.get(4)!();
    await run;
    expect(consumed).toEqual([0, 10, 20, 30, 40]);
  });

  it('lets go of each result once consumed, not at the end of the run', async () => {
    // A load's decoded batches are its results: held to the end, a 100k load kept every
    // decoded file object alive until it was over.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const firstResult: WeakRef<object>[] = [];
    let releaseLast: () => void = () => undefined;
    const run = consumeInOrder(
      [0, 1, 2, 3],
      1,
      (item) =>
        new Promise<object>((resolve) => {
          if (item < 3) resolve({ item, bytes: new Uint8Array(1024) });
          else releaseLast = () => resolve({ item });
        }),
      async (_item, result) => {
        if (firstResult.length === 0) firstResult.push(new WeakRef(result));
      },
      () => false,
    );
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await settle();
    await settle();
    collect();
    expect(firstResult[0]?.deref()).toBeUndefined();
    releaseLast();
    await run;
  });

  it('starts no more items once told to stop', async () => {
    const started: number[] = [];
    let stop = false;

    await consumeInOrder(
      [0, 1, 2, 3],
      0,
      async (item) => {
        started.push(item);
      },
      async () => {
        stop = true;
      },
      () => stop,
    );

    expect(started).toEqual([0]);
  });
});
