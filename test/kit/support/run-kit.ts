import { DEFAULT_RUN_OPTIONS, runContract, type CheckResult, type RunOptions, type RunResult } from '../../../src/kit/run/run';

/**
 * No clock bounds in tests: a property check stopped at a time bound judges fewer generated
 * queries on a busy machine than on a quiet one, and can then miss the fault it is there to
 * catch; a request given up after 10 s (the CLI's default) ends the whole run as "cannot run"
 * when a loaded machine is slower than that to build an index. The run count bounds a check
 * instead, and jest.config.js's hang guard a hung server. A test of a bound passes its own.
 */
const NO_TIME_LIMIT_MS = 15 * 60_000;

/** Runs the kit in-process with small, fixed bounds so a suite stays fast and replayable. */
export function runKit(options: Pick<RunOptions, 'baseUrl' | 'conversationId'> & Partial<RunOptions>): Promise<RunResult> {
  return runContract({
    ...DEFAULT_RUN_OPTIONS,
    seed: 20260616,
    runs: 5,
    propertyTimeLimitMs: NO_TIME_LIMIT_MS,
    timeoutMs: NO_TIME_LIMIT_MS,
    ...options,
  });
}

export function allChecksOf(result: RunResult): CheckResult[] {
  return result.suites.flatMap((suite) => suite.checks);
}

/** Checks that did not pass, with what they said, for readable assertion failures. */
export function notPassed(result: RunResult): { id: string; status: string; said: string[] }[] {
  return allChecksOf(result)
    .filter((check) => check.status !== 'passed')
    .map((check) => ({ id: check.id, status: check.status, said: [check.details ?? '', ...check.findings.map((finding) => finding.message)] }));
}

export function failedIds(result: RunResult): string[] {
  return allChecksOf(result)
    .filter((check) => check.status === 'failed')
    .map((check) => check.id);
}
