/**
 * One Schemathesis run against a running server, with the checked-in configuration
 * (schemathesis.toml beside this file), read back from its JUnit report.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pythonEnvironment } from '../python/environment';
import { SCHEMATHESIS } from '../python/toolsets';
import { findingsOf, type JUnitTestCase, readJUnitReport } from './junit-report';

const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
export const SCHEMATHESIS_CONFIG = path.join(__dirname, 'schemathesis.toml');
export const CONTRACT = path.join(PROJECT_ROOT, 'openapi.yaml');

export interface SchemathesisOptions {
  /** The server's base URL, `http://127.0.0.1:<port>`. */
  readonly baseUrl: string;
  /** Where the report and Hypothesis' files go; created if missing. */
  readonly workDirectory: string;
  /** The API description: a file or a URL; openapi.yaml by default. */
  readonly schema?: string;
  /** Overrides the configuration's examples per operation and phase. */
  readonly maxExamples?: number;
  /** More `schemathesis run` options, such as operation filters. */
  readonly extraArguments?: readonly string[];
  /** Receives Schemathesis' console output as it comes. */
  readonly onOutput?: (chunk: string) => void;
}

export interface SchemathesisFinding {
  /** `GET /api/...`, `TRACE /api/...` or `Stateful tests`. */
  readonly operation: string;
  readonly kind: 'failure' | 'error';
  /** Schemathesis' codes, such as `ST108`. */
  readonly codes: readonly string[];
  /** As Schemathesis prints it: what failed, the response, a curl line. */
  readonly text: string;
}

export interface SchemathesisRun {
  /** The command line, for reports and for running it again by hand. */
  readonly command: readonly string[];
  readonly exitCode: number;
  /** Schemathesis' console output. */
  readonly output: string;
  readonly testCases: readonly JUnitTestCase[];
  readonly findings: readonly SchemathesisFinding[];
  /** Failures the hooks dropped (see hooks.py), as Schemathesis counts them. */
  readonly droppedByHooks: number;
  readonly durationMs: number;
}

export async function runSchemathesis(options: SchemathesisOptions): Promise<SchemathesisRun> {
  const environment = await pythonEnvironment(SCHEMATHESIS);
  mkdirSync(options.workDirectory, { recursive: true });
  const junitPath = path.join(options.workDirectory, 'junit.xml');
  const command = [
    environment.executable('schemathesis'),
    '--config-file',
    SCHEMATHESIS_CONFIG,
    'run',
    options.schema ?? CONTRACT,
    '--url',
    options.baseUrl,
    '--report',
    'junit',
    '--report-junit-path',
    junitPath,
    '--no-color',
    ...(options.maxExamples === undefined ? [] : ['--max-examples', String(options.maxExamples)]),
    ...(options.extraArguments ?? []),
  ];
  const started = performance.now();
  const { exitCode, output } = await runCommand(command, options);
  const durationMs = performance.now() - started;
  let testCases: JUnitTestCase[];
  try {
    testCases = readJUnitReport(readFileSync(junitPath, 'utf8'));
  } catch (error) {
    const tail = output.trim().split('\n').slice(-20).join('\n');
    throw new Error(`Schemathesis wrote no readable report (exit ${exitCode}, ${(error as Error).message}):\n${tail}`);
  }
  const findings = testCases.flatMap((testCase) =>
    testCase.outcomes.flatMap((outcome) =>
      outcome.kind === 'skipped'
        ? []
        : findingsOf(outcome).map((text) => ({
            operation: testCase.name,
            kind: outcome.kind as 'failure' | 'error',
            codes: [...new Set(text.match(/\bST\d{3}\b/g) ?? [])],
            text,
          })),
    ),
  );
  const dropped = /Filtered: (\d+) \(dropped by `filter_failure`\)/.exec(output);
  return { command, exitCode, output, testCases, findings, droppedByHooks: dropped ? Number(dropped[1]) : 0, durationMs };
}

function runCommand(command: readonly string[], options: SchemathesisOptions): Promise<{ exitCode: number; output: string }> {
  const [executable, ...args] = command as [string, ...string[]];
  const child = spawn(executable, args, {
    // The configuration names its hooks file relative to the project root.
    cwd: PROJECT_ROOT,
    env: { ...process.env, HYPOTHESIS_STORAGE_DIRECTORY: path.join(options.workDirectory, 'hypothesis'), NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    const text = chunk.toString();
    output += text;
    options.onOutput?.(text);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ exitCode: code ?? (signal ? 128 : 1), output }));
  });
}

/** Every finding in full, for an assertion message or a console. */
export function describeFindings(run: SchemathesisRun): string {
  return run.findings.map((finding) => `${finding.operation} (${finding.kind})\n${finding.text}`).join('\n\n');
}
