/** Outcome of one check: fine, worth a look, or a problem that will make the deployment misbehave. */
export type CheckStatus = 'pass' | 'warn' | 'fail';

/**
 * One line of the doctor's checklist, as plain data. `fix` says in one sentence what to do and is
 * present on every warning and failure; `source` names where the finding came from (a YAML path of
 * the values file, a URL that was asked, or the flag a figure was read from).
 */
export interface Check {
  name: string;
  status: CheckStatus;
  message: string;
  fix?: string;
  source?: string;
}

/** How many checks ended in each status. */
export type CheckSummary = Record<CheckStatus, number>;

/** Builds a passing check. */
export function pass(name: string, message: string, source?: string): Check {
  return withSource({ name, status: 'pass', message }, source);
}

/** Builds a warning: the deployment may work, but `fix` says how to make it safer. */
export function warn(name: string, message: string, fix: string, source?: string): Check {
  return withSource({ name, status: 'warn', message, fix }, source);
}

/** Builds a failure: the deployment will misbehave until `fix` is applied. */
export function fail(name: string, message: string, fix: string, source?: string): Check {
  return withSource({ name, status: 'fail', message, fix }, source);
}

function withSource(check: Check, source: string | undefined): Check {
  return source === undefined ? check : { ...check, source };
}

/** Counts the checks by status. */
export function summarize(checks: readonly Check[]): CheckSummary {
  const summary: CheckSummary = { pass: 0, warn: 0, fail: 0 };
  for (const check of checks) summary[check.status] += 1;
  return summary;
}

/** True when at least one check failed, which is what makes the command exit non-zero. */
export function hasFailure(checks: readonly Check[]): boolean {
  return checks.some((check) => check.status === 'fail');
}

/**
 * Replaces every occurrence of `secret` in `text` with a mask. Secrets shorter than four characters
 * are left alone: they are placeholders (`x`, `-`) and masking them would garble ordinary words.
 */
export function redactSecret(text: string, secret: string): string {
  return secret.length < MIN_REDACTED_LENGTH ? text : text.split(secret).join(SECRET_MASK);
}

/** Applies {@link redactSecret} to every text field of every check. */
export function redactChecks(checks: readonly Check[], secret: string): Check[] {
  return checks.map((check) => {
    const redacted: Check = { ...check, message: redactSecret(check.message, secret) };
    if (check.fix !== undefined) redacted.fix = redactSecret(check.fix, secret);
    if (check.source !== undefined) redacted.source = redactSecret(check.source, secret);
    return redacted;
  });
}

const MIN_REDACTED_LENGTH = 4;
const SECRET_MASK = '***';

const STATUS_LABEL: Record<CheckStatus, string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' };
const FIX_INDENT = ' '.repeat('PASS  '.length);

/** Renders the checklist for a terminal: one line per check, its fix on the line below, a summary last. */
export function formatText(checks: readonly Check[]): string {
  const lines: string[] = [];
  for (const check of checks) {
    lines.push(`${STATUS_LABEL[check.status]}  ${check.name}: ${check.message}`);
    if (check.fix !== undefined) lines.push(`${FIX_INDENT}fix: ${check.fix}`);
  }
  lines.push('', describeSummary(summarize(checks)));
  return `${lines.join('\n')}\n`;
}

function describeSummary(summary: CheckSummary): string {
  const warnings = summary.warn === 1 ? 'warning' : 'warnings';
  return `${summary.pass} passed, ${summary.warn} ${warnings}, ${summary.fail} failed`;
}

/** The machine-readable report printed by `--json`: overall verdict, counts and the checks themselves. */
export interface JsonReport {
  ok: boolean;
  summary: CheckSummary;
  checks: Check[];
}

/** Builds the `--json` report; `ok` is false exactly when the command exits with 1. */
export function toJsonReport(checks: readonly Check[]): JsonReport {
  return { ok: !hasFailure(checks), summary: summarize(checks), checks: [...checks] };
}

/** Renders the `--json` report as indented JSON followed by a newline. */
export function formatJson(checks: readonly Check[]): string {
  return `${JSON.stringify(toJsonReport(checks), null, 2)}\n`;
}
