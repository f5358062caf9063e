/**
 * The result of a run as plain data, and how check outcomes become it: findings with
 * the request, a summary of the response and a curl line; allowed divergences marked;
 * `--compare` differences as one verdict per check that sent requests.
 */
import type { Difference, Mirror } from './compare';
import type { Coverage } from '../coverage';
import { curlLine } from '../curl';
import { summarizeResponse } from './response-summary';
import type { Check, CheckOutcome, Finding, Level, SuiteName } from './types';

export type CheckStatus = 'passed' | 'failed' | 'allowed' | 'skipped' | 'not-implemented';

export interface ReportedFinding {
  message: string;
  expected?: string;
  request?: { method: 'GET'; url: string; curl: string };
  response?: { status: number; excerpt: string };
}

export interface CheckResult {
  id: string;
  suite: SuiteName;
  title: string;
  status: CheckStatus;
  details?: string;
  findings: ReportedFinding[];
  /** Why a failure is accepted, from the allow file. */
  allowedReason?: string;
  durationMs: number;
  requests: number;
}

export interface SuiteResult {
  name: SuiteName;
  checks: CheckResult[];
}

export interface RunResult {
  /** `replay`: the HAR file a `--replay` run sent again (it has no conversation then). */
  target: { baseUrl: string; conversationId: string; compareUrl?: string; fixture?: boolean; replay?: string };
  seed: number;
  runs: number;
  levels: Level[];
  startedAt: string;
  durationMs: number;
  requests: { sent: number; max: number; mirrored?: number };
  /** `cannot-run` means exit 2: `problem` says what happened and what to do. */
  outcome: 'passed' | 'failed' | 'cannot-run';
  problem?: string;
  suites: SuiteResult[];
  notes: string[];
  /** What the run exercised of the contract (absent when it could not run). */
  coverage?: Coverage;
}

export function toResult(
  check: Pick<Check, 'id' | 'level' | 'title'>,
  outcome: CheckOutcome,
  durationMs: number,
  requests: number,
  allow: Map<string, string>,
  withKey: boolean,
): CheckResult {
  const allowedReason = allow.get(check.id);
  const status: CheckStatus = outcome.status === 'failed' && allowedReason !== undefined ? 'allowed' : outcome.status;
  return {
    id: check.id,
    suite: check.level,
    title: check.title,
    status,
    ...(outcome.details !== undefined ? { details: outcome.details } : {}),
    findings: outcome.status === 'failed' ? outcome.findings.map((finding) => reportFinding(finding, withKey)) : [],
    ...(status === 'allowed' ? { allowedReason } : {}),
    durationMs,
    requests,
  };
}

export function reportFinding(finding: Finding, withKey: boolean): ReportedFinding {
  const reported: ReportedFinding = { message: finding.message };
  if (finding.expected !== undefined) reported.expected = finding.expected;
  if (finding.exchange) {
    reported.request = { method: 'GET', url: finding.exchange.url, curl: curlLine(finding.exchange.url, withKey) };
    reported.response = { status: finding.exchange.status, excerpt: summarizeResponse(finding.exchange) };
  }
  return reported;
}

export function compareResults(mirror: Mirror, allow: Map<string, string>, withKey: boolean): CheckResult[] {
  return mirror.checkIds.map((checkId) => {
    const own = mirror.differences.filter((difference) => difference.checkId === checkId);
    const elsewhere = [
      ...new Set(
        mirror.differences
          .filter((difference) => difference.checkId !== checkId && difference.checkIds.includes(checkId))
          .map((difference) => `compare.${difference.checkId}`),
      ),
    ];
    // A difference is reported once, under the first check that met it; a later check that met it too says where.
    const outcome: CheckOutcome =
      own.length > 0
        ? { status: 'failed', findings: own.map(differenceFinding), ...(elsewhere.length > 0 ? { details: sameAs(elsewhere) } : {}) }
        : elsewhere.length > 0
          ? { status: 'failed', findings: [], details: sameAs(elsewhere) }
          : { status: 'passed' };
    const result = toResult(
      { id: `compare.${checkId}`, level: 'seed', title: `the requests of ${checkId} get the same responses from both servers` },
      outcome,
      0,
      0,
      allow,
      withKey,
    );
    return { ...result, suite: 'compare' as const };
  });
}

function sameAs(checkIds: string[]): string {
  return `its requests also showed the differences reported under ${checkIds.join(', ')} (each is reported once)`;
}

function differenceFinding(difference: Difference): Finding {
  const others = difference.checkIds.filter((checkId) => checkId !== difference.checkId);
  const requests = difference.requests === 1 ? '1 request' : `${difference.requests} requests`;
  return {
    message: `${difference.description}; shown by ${requests}${others.length > 0 ? ` (also in ${others.join(', ')})` : ''}`,
    expected: 'the same status and body from both servers',
    exchange: difference.first,
  };
}
