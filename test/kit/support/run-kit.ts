import { DEFAULT_RUN_OPTIONS, runContract, type CheckResult, type RunOptions, type RunResult } from '../../../src/kit/run/run';

/**
 * No time bound on a property check in tests: a check stopped at a clock's bound judges fewer
 * generated queries on a busy machine than on a quiet one, and can then miss the fault it is
 * there to catch. The run count bounds it instead (and jest.config.js's hang guard).
 */
const NO_TIME_LIMIT_MS = 15 * 60_000;

/** Runs the kit in-process with small, fixed bounds so a suite stays fast and replayable. */
export function runKit(options: Pick<RunOptions, 'baseUrl' | 'conversationId'> & Partial<RunOptions>): Promise<RunResult> {
  return runContract({ ...DEFAULT_RUN_OPTIONS, seed: 20260616, runs: 5, propertyTimeLimitMs: NO_TIME_LIMIT_MS, ...options });
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
