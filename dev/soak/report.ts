/**
 * A soak run's figures and the checks it must pass: no failed request, every appended event
 * served exactly once, the append rate held, a clean stop. The text form is what
 * `npm run soak` prints and what docs/hardening.md quotes.
 */
import type { LatencySummary } from './latency';
import type { SoakOptions } from './options';
import type { ProcessExit } from '../process/server-process';
import type { AppendVerdict } from './verify';

export interface SoakFigures {
  options: SoakOptions;
  elapsedSeconds: number;
  requests: number;
  walks: number;
  errors: number;
  errorSamples: string[];
  latency: LatencySummary;
  appends: AppendVerdict;
  /** Server resident memory in kB: once listening, the highest sampled, and after the final walks. */
  rssKb: { start?: number; peak?: number; end?: number };
  serverExit: ProcessExit;
}

export interface SoakCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface SoakReport extends SoakFigures {
  checks: SoakCheck[];
  ok: boolean;
}

/** Below this share of the asked rate, the writer did not load the server as intended. */
const MIN_APPEND_SHARE = 0.95;

/** The figures with the checks applied; `ok` only when every check passes. */
export function judgeSoak(figures: SoakFigures): SoakReport {
  const { appends, options } = figures;
  const expectedAppends = Math.floor(options.appendsPerSecond * figures.elapsedSeconds);
  const checks: SoakCheck[] = [
    { name: 'no failed request', ok: figures.errors === 0, detail: `${figures.errors} of ${figures.requests}` },
    {
      name: 'every appended event served exactly once',
      ok: appends.walkError === undefined && appends.missing === 0 && appends.duplicated === 0 && appends.servedOnce === appends.appended,
      detail: appends.walkError ?? `${appends.servedOnce} of ${appends.appended}; missing ${appends.missing}, duplicated ${appends.duplicated}`,
    },
    {
      name: 'append rate held',
      ok: appends.appended >= MIN_APPEND_SHARE * expectedAppends,
      detail: `${appends.appended} appended, ${expectedAppends} asked`,
    },
    { name: 'server stopped cleanly', ok: figures.serverExit.code === 0, detail: `exit ${figures.serverExit.code ?? figures.serverExit.signal}` },
  ];
  return { ...figures, checks, ok: checks.every((check) => check.ok) };
}

/** The report as the lines `npm run soak` prints. */
export function formatSoakReport(report: SoakReport): string {
  const { options, latency, appends, rssKb } = report;
  const perSecond = (count: number) => Math.round(count / report.elapsedSeconds);
  return [
    `Soak: ${options.seconds} s, ${options.clients} clients, ${options.conversations} conversations of ${options.initialEvents} events, ${options.appendsPerSecond} appends/s, loopback`,
    `Requests     ${report.requests} (${perSecond(report.requests)}/s), ${report.walks} walks to the last page`,
    `Errors       ${report.errors}${report.errorSamples.map((sample) => `\n  ${sample}`).join('')}`,
    `Latency ms   p50 ${latency.p50.toFixed(1)}  p90 ${latency.p90.toFixed(1)}  p99 ${latency.p99.toFixed(1)}  max ${latency.max.toFixed(1)}`,
    `Appended     ${appends.appended} events; final walks served ${appends.servedOnce} exactly once, ${appends.missing} missing, ${appends.duplicated} twice (${appends.walkedEvents} events walked)`,
    `Server RSS   start ${megabytes(rssKb.start)}, peak ${megabytes(rssKb.peak)}, end ${megabytes(rssKb.end)}`,
    ...report.checks.map((check) => `${check.ok ? 'PASS' : 'FAIL'}  ${check.name} (${check.detail})`),
  ].join('\n');
}

function megabytes(kb: number | undefined): string {
  return kb === undefined ? 'n/a' : `${(kb / 1024).toFixed(1)} MB`;
}
