/**
 * How many cases the fuzz tests run and from which seed. CI runs about 2000 cases in all;
 * `FUZZ_RUNS=20000` runs more, `FUZZ_SEED=<n>` replays a run. A failure names both, so the
 * run that found it can be repeated exactly.
 */
import fc from 'fast-check';

const DEFAULT_TOTAL_RUNS = 2000;

export const FUZZ_SEED = Number(process.env['FUZZ_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const totalRuns = Number(process.env['FUZZ_RUNS'] ?? DEFAULT_TOTAL_RUNS);

/** This property's share of the total runs (at least one). */
export function runsFor(share: number): number {
  return Math.max(1, Math.round(totalRuns * share));
}

/** A jest timeout for a property with this share: generous per case, so FUZZ_RUNS never trips it first. */
export function timeoutFor(share: number): number {
  return 30_000 + runsFor(share) * 25;
}

/** fc.assert with the run's seed; a failure says how to replay it. */
export async function assertProperty<T>(property: fc.IAsyncProperty<T>, share: number): Promise<void> {
  const numRuns = runsFor(share);
  try {
    await fc.assert(property, { numRuns, seed: FUZZ_SEED });
  } catch (error) {
    const replay = `replay with FUZZ_SEED=${FUZZ_SEED} FUZZ_RUNS=${totalRuns} npx jest test/hardening/fuzz`;
    // The cause is the assertion that failed; fast-check's own message carries the (shortened) counterexample.
    throw new Error(`${replay}\n${shortened((error as Error).message)}`, { cause: (error as Error).cause });
  }
}

/** Counterexamples run to kilobytes (a 10 KB query); each line is cut so the report stays readable. */
function shortened(message: string): string {
  const limit = 1500;
  return message
    .split('\n')
    .map((line) => (line.length > limit ? `${line.slice(0, limit)}... (${line.length - limit} more characters)` : line))
    .join('\n');
}
