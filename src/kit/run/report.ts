/**
 * The three renderings of a run: text for people, JUnit XML for CI (one testsuite per
 * level, a testcase per check), and JSON (the run result as it is).
 */
import { coverageLines } from '../coverage';
import type { CheckResult, CheckStatus, ReportedFinding, RunResult, SuiteResult } from './run';

const MARK: Record<CheckStatus, string> = {
  passed: 'ok     ',
  failed: 'FAIL   ',
  allowed: 'allowed',
  skipped: 'skip   ',
  'not-implemented': 'missing',
};
const SUITE_TITLE: Record<SuiteResult['name'], string> = {
  seed: 'seed level (what the contract mandates)',
  reference: 'reference level (what the reference server does, beyond the contract)',
  compare: 'compare (same requests against the second server)',
  replay: 'replay (each recorded request, judged by the contract and against its recorded answer)',
};

export function countByStatus(checks: readonly CheckResult[]): Record<CheckStatus, number> {
  const counts: Record<CheckStatus, number> = { passed: 0, failed: 0, allowed: 0, skipped: 0, 'not-implemented': 0 };
  for (const check of checks) counts[check.status] += 1;
  return counts;
}

export function renderText(result: RunResult): string {
  const lines: string[] = [
    'Agent server contract kit',
    `  server        ${result.target.baseUrl}`,
    ...(result.target.replay !== undefined
      ? [`  replaying     ${result.target.replay}`]
      : [
          `  conversation  ${result.target.conversationId}`,
          ...(result.target.compareUrl ? [`  compared with ${result.target.compareUrl}`] : []),
          `  seed          ${result.seed} (replay with --seed ${result.seed} --runs ${result.runs})`,
        ]),
    '',
  ];
  if (result.outcome === 'cannot-run') {
    lines.push(`CANNOT RUN: ${result.problem}`, '');
    return lines.join('\n');
  }
  for (const suite of result.suites) lines.push(...suiteLines(suite), '');
  for (const note of result.notes) lines.push(`note: ${note}`);
  if (result.notes.length > 0) lines.push('');
  if (result.coverage) lines.push(...coverageLines(result.coverage), '');
  lines.push(summaryLine(result), '');
  return lines.join('\n');
}

function suiteLines(suite: SuiteResult): string[] {
  const counts = countByStatus(suite.checks);
  const lines = [
    `${SUITE_TITLE[suite.name]}: ${counts.passed} passed, ${counts.failed} failed, ${counts.allowed} allowed, ${counts.skipped} skipped${notImplementedCount(counts)}`,
  ];
  for (const check of suite.checks) {
    lines.push(`  ${MARK[check.status]} ${check.id}  ${check.title}`);
    if ((check.status === 'skipped' || check.status === 'not-implemented') && check.details) lines.push(`            ${check.details}`);
    if (check.status === 'allowed') lines.push(`            allowed: ${check.allowedReason}`);
    if (check.status === 'failed' || check.status === 'allowed') {
      if (check.details) lines.push(`            ${check.details}`);
      for (const finding of check.findings) lines.push(...findingLines(finding));
    }
  }
  return lines;
}

function findingLines(finding: ReportedFinding): string[] {
  const indent = '            ';
  const lines = [`${indent}- ${finding.message}`];
  if (finding.expected) lines.push(`${indent}  expected:  ${finding.expected}`);
  if (finding.request) lines.push(`${indent}  request:   GET ${finding.request.url}`);
  if (finding.response) lines.push(`${indent}  response:  ${finding.response.status} ${finding.response.excerpt}`);
  if (finding.request) lines.push(`${indent}  reproduce: ${finding.request.curl}`);
  return lines;
}

function notImplementedCount(counts: Record<CheckStatus, number>): string {
  return counts['not-implemented'] > 0 ? `, ${counts['not-implemented']} not implemented by the server` : '';
}

function summaryLine(result: RunResult): string {
  const counts = countByStatus(result.suites.flatMap((suite) => suite.checks));
  const verdict = result.outcome === 'passed' ? 'PASSED' : 'FAILED';
  const mirrored = result.requests.mirrored !== undefined ? ` (+${result.requests.mirrored} to the second server)` : '';
  return `${verdict}: ${counts.passed} passed, ${counts.failed} failed, ${counts.allowed} allowed, ${counts.skipped} skipped${notImplementedCount(counts)}; ${result.requests.sent} requests${mirrored} in ${(result.durationMs / 1000).toFixed(1)} s`;
}

// ---- JUnit ----------------------------------------------------------------------------------

/**
 * JUnit XML as CI tools read it. Allowed divergences and skipped checks are `<skipped>`
 * (visible, not failing); failures carry a one-line message and the findings as text.
 */
export function renderJunit(result: RunResult): string {
  const all = result.suites.flatMap((suite) => suite.checks);
  const totals = countByStatus(all);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="agent-server-contract" tests="${all.length}" failures="${totals.failed}" errors="${result.outcome === 'cannot-run' ? 1 : 0}" skipped="${totals.skipped + totals.allowed + totals['not-implemented']}" time="${seconds(result.durationMs)}">`,
  ];
  if (result.outcome === 'cannot-run') {
    lines.push(`  <testsuite name="setup" tests="1" failures="0" errors="1" skipped="0" time="0">`);
    lines.push(`    <testcase classname="setup" name="run" time="0"><error message="${xmlAttribute(result.problem ?? '')}"/></testcase>`);
    lines.push('  </testsuite>');
  }
  for (const suite of result.suites) lines.push(...junitSuite(suite, result.startedAt));
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

function junitSuite(suite: SuiteResult, timestamp: string): string[] {
  const counts = countByStatus(suite.checks);
  const time = suite.checks.reduce((sum, check) => sum + check.durationMs, 0);
  const lines = [
    `  <testsuite name="${suite.name}" tests="${suite.checks.length}" failures="${counts.failed}" errors="0" skipped="${counts.skipped + counts.allowed + counts['not-implemented']}" time="${seconds(time)}" timestamp="${timestamp.slice(0, 19)}">`,
  ];
  for (const check of suite.checks) {
    const open = `    <testcase classname="${suite.name}" name="${xmlAttribute(`${check.id}: ${check.title}`)}" time="${seconds(check.durationMs)}"`;
    if (check.status === 'passed') {
      lines.push(`${open}/>`);
    } else if (check.status === 'skipped') {
      lines.push(`${open}><skipped message="${xmlAttribute(check.details ?? 'skipped')}"/></testcase>`);
    } else if (check.status === 'not-implemented') {
      lines.push(`${open}><skipped message="${xmlAttribute(`not implemented by the server: ${check.details ?? ''}`)}"/></testcase>`);
    } else if (check.status === 'allowed') {
      lines.push(
        `${open}><skipped message="${xmlAttribute(`allowed divergence: ${check.allowedReason ?? ''}`)}"/><system-out>${xmlText(findingsText(check))}</system-out></testcase>`,
      );
    } else {
      const message = check.findings[0]?.message ?? 'failed';
      lines.push(`${open}><failure message="${xmlAttribute(message)}" type="ContractViolation">${xmlText(findingsText(check))}</failure></testcase>`);
    }
  }
  lines.push('  </testsuite>');
  return lines;
}

function findingsText(check: CheckResult): string {
  const lines = check.details ? [check.details] : [];
  for (const finding of check.findings) lines.push(...findingLines(finding).map((line) => line.trimStart()));
  return lines.join('\n');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

// XML 1.0 forbids most control characters, even escaped; a server's body may contain them.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function xmlText(value: string): string {
  return value.replace(NOT_XML, '\uFFFD').replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

export function xmlAttribute(value: string): string {
  return xmlText(value).replaceAll('"', '&quot;').replaceAll('\n', '&#10;').replaceAll('\r', '&#13;').replaceAll('\t', '&#9;');
}

// ---- JSON -----------------------------------------------------------------------------------

export function renderJson(result: RunResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}
