/** Where a result was measured: the machine and the code, as the results log records them. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

export interface Machine {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly nodeVersion: string;
  readonly system: string;
}

/**
 * The 1-minute load average against the number of cores. Others may share the machine;
 * a load above the core count means the figures of this run are noisy.
 */
export function loadAverage(): number {
  return os.loadavg()[0] ?? Number.NaN;
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown CPU',
    cores: cpus.length,
    memoryGiB: os.totalmem() / 2 ** 30,
    nodeVersion: process.version,
    system: `${os.type()} ${os.release()}`,
  };
}

/**
 * The commit the code was measured at: the short hash, plus "dirty" when the working tree
 * has changes (other work in the same checkout counts: it is what ran).
 */
export function describeCommit(repoRoot: string): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
  try {
    const hash = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain') === '' ? hash : `${hash} dirty`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
