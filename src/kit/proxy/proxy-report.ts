/**
 * The proxy's renderings: a violation as it happens, the summary at the end (with the
 * session's coverage of the contract), JUnit (one testcase per operation, failing with
 * every violation it saw) and JSON (the summary as it is).
 */
import { coverageLines } from '../coverage';
import type { ProxySummary, ProxyViolation } from './proxy';
import { xmlAttribute, xmlText } from '../run/report';

export function violationLines(violation: ProxyViolation): string {
  const lines = [
    `VIOLATION #${violation.seq} ${violation.method} ${violation.target} -> ${violation.status}${violation.operationId ? ` (${violation.operationId})` : ''}`,
  ];
  for (const problem of violation.problems) lines.push(`  - ${problem}`);
  lines.push(`  reproduce: ${violation.curl}`);
  return `${lines.join('\n')}\n`;
}

export function renderProxySummary(summary: ProxySummary): string {
  const offending = new Set(summary.violations.map((violation) => violation.seq)).size;
  const lines = [
    '',
    `Contract proxy for ${summary.target}: ${summary.exchanges} exchanges in ${(summary.durationMs / 1000).toFixed(1)} s, ${offending} with violations`,
  ];
  if (summary.unjudged > 0) lines.push(`  ${summary.unjudged} exchanges were forwarded but not judged: the judging fell behind or stopped`);
  for (const [operation, violations] of byOperation(summary.violations)) {
    lines.push(`  ${operation}: ${violations.length} exchanges with violations`);
    for (const problem of new Set(violations.flatMap((violation) => violation.problems))) lines.push(`    - ${problem}`);
  }
  if (summary.outside.length > 0) {
    lines.push('  Outside the contract (passed through, not judged):');
    for (const traffic of summary.outside)
      lines.push(`    ${traffic.method} ${traffic.path}: ${traffic.requests} requests, answered ${traffic.statuses.join(', ')}`);
  }
  for (const socket of summary.webSockets) lines.push(`  WebSocket ${socket.path}: ${socket.connections} connections passed through`);
  lines.push(
    '',
    ...coverageLines(summary.coverage),
    '',
    summary.violations.length === 0 ? 'PASSED: no exchange violated the contract' : `FAILED: ${offending} exchanges violated the contract`,
    '',
  );
  return lines.join('\n');
}

function byOperation(violations: readonly ProxyViolation[]): Map<string, ProxyViolation[]> {
  const grouped = new Map<string, ProxyViolation[]>();
  for (const violation of violations) {
    const key = violation.operationId ?? '(no operation of the contract)';
    grouped.set(key, [...(grouped.get(key) ?? []), violation]);
  }
  return grouped;
}

export function renderProxyJunit(summary: ProxySummary): string {
  const grouped = byOperation(summary.violations);
  const names = [
    ...summary.coverage.operations.map((operation) => operation.operationId),
    ...[...grouped.keys()].filter((key) => !summary.coverage.operations.some((operation) => operation.operationId === key)),
  ];
  const failures = names.filter((name) => grouped.has(name)).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="agent-server-contract proxy" tests="${names.length}" failures="${failures}" errors="0" skipped="0" time="${(summary.durationMs / 1000).toFixed(3)}">`,
    `  <testsuite name="proxy" tests="${names.length}" failures="${failures}" errors="0" skipped="0" time="${(summary.durationMs / 1000).toFixed(3)}" timestamp="${summary.startedAt.slice(0, 19)}">`,
  ];
  for (const name of names) {
    const requests = summary.coverage.operations.find((operation) => operation.operationId === name)?.requests;
    const open = `    <testcase classname="proxy" name="${xmlAttribute(`${name}${requests === undefined ? '' : `: ${requests} exchanges`}`)}" time="0"`;
    const violations = grouped.get(name);
    if (!violations) {
      lines.push(`${open}/>`);
      continue;
    }
    const first = violations[0]!;
    lines.push(
      `${open}><failure message="${xmlAttribute(`${first.method} ${first.target}: ${first.problems[0] ?? ''}`)}" type="ContractViolation">${xmlText(violations.map(violationLines).join('\n'))}</failure></testcase>`,
    );
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

export function renderProxyJson(summary: ProxySummary): string {
  return `${JSON.stringify(summary, null, 2)}\n`;
}
