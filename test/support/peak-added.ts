import { processMemory, resetPeakResident } from '../../dev/process/server-process';

const MB = 1024 * 1024;
const TRIALS = 3;

/**
 * What `run` adds to a process's resident memory at its peak (VmHWM against VmRSS before it),
 * with what its last trial gave. What pieces read add is garbage, so it depends on when the
 * collector runs, while what is read whole is held at once: `run` is tried again, up to three
 * times in all, while what it adds is over `bound`. Work that reads whole is over in every trial.
 */
export async function peakAdded<T>(pid: number, label: string, bound: number, run: () => Promise<T>): Promise<{ result: T; added: number }> {
  for (let trial = 1; ; trial++) {
    resetPeakResident(pid);
    const before = processMemory(pid).residentBytes;
    const result = await run();
    const peak = processMemory(pid).peakResidentBytes;
    process.stdout.write(`${label}: resident ${Math.round(before / MB)} MB before, peak ${Math.round(peak / MB)} MB\n`);
    if (peak - before < bound || trial === TRIALS) return { result, added: peak - before };
  }
}
