/**
 * `--require-coverage`: a run passes only when it exercised what the contract declares for
 * every operation it judged: each parameter, each event kind an operation returns, and each
 * status a conforming server can be led to send. 5xx statuses are never required (a
 * conforming server need not fail), nor 401 unless the run sent a session key; an operation
 * the server does not have, or that the run did not exercise on purpose, is left out.
 */
import type { Coverage } from '../coverage';
import type { CheckResult } from './result';
import { verdict, type Check, type CheckOutcome, type Finding } from './types';

export const COVERAGE_GATE: Pick<Check, 'id' | 'level' | 'title'> = {
  id: 'coverage.required',
  level: 'seed',
  title: 'the run exercised every declared status, parameter and event kind of the operations it judged (--require-coverage)',
};

export function coverageGate(
  coverage: Coverage,
  results: readonly CheckResult[],
  options: { withKey: boolean; inScope: readonly string[] | undefined },
): CheckOutcome {
  const leftOut = new Set(
    results
      .filter((result) => result.id.startsWith('operations.') && (result.status === 'not-implemented' || result.status === 'skipped'))
      .map((result) => result.id.replace(/^operations\.(.+)\.(valid|invalid)$/, '$1')),
  );
  const findings: Finding[] = [];
  for (const operation of coverage.operations) {
    if (leftOut.has(operation.operationId) || (options.inScope && !options.inScope.includes(operation.operationId))) continue;
    const statuses = operation.statusesNotSeen.filter((status) => !/^5/.test(status) && (options.withKey || status !== '401'));
    const missing = [
      ...(statuses.length > 0 ? [`statuses ${statuses.join(', ')}`] : []),
      ...(operation.parametersNotExercised.length > 0 ? [`parameters ${operation.parametersNotExercised.join(', ')}`] : []),
      ...((operation.kindsNotSeen ?? []).length > 0 ? [`event kinds ${operation.kindsNotSeen!.join(', ')}`] : []),
    ];
    if (missing.length > 0)
      findings.push({
        message: `${operation.operationId} (${operation.method} ${operation.path}): never exercised ${missing.join('; ')}`,
        expected:
          'every declared status, parameter and event kind met at least once; a conversation with every kind helps (agent-server-contract fixture)',
      });
  }
  return verdict(findings, `${coverage.operations.length} operations`);
}
