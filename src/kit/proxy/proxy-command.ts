/**
 * `agent-server-contract proxy --target URL [--port P] [--junit FILE] [--json FILE]`: the
 * command around the proxy, given its arguments, where to write, and a promise that
 * settles when the user asks it to stop (the CLI wires SIGINT and SIGTERM to it). Returns
 * the exit code: 0 nothing violated, 1 a violation, 2 it could not run.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import https from 'node:https';
import { parseArgs } from 'node:util';
import { loadContract } from '../contract-source';
import { isHttpUrl } from '../run/arguments';
import { startContractProxy } from './proxy';
import { renderProxyJson, renderProxyJunit, renderProxySummary, violationLines } from './proxy-report';
import { writeReportFile } from '../report-file';
import { type HarRecorder, recordHar } from '../har';

export const PROXY_USAGE = `Usage: npm run contract -- proxy --target URL [--port P] [--record FILE.har] [--junit FILE] [--json FILE]
       agent-server-contract proxy --target URL [options]

Listens on 127.0.0.1, forwards every request unchanged to the implementation at URL and
checks each exchange against openapi.yaml: the operation, the status declared for it, the
body for that status, next_page_id, and no 5xx. Violations are printed as they happen, with
a curl line. Paths the contract does not declare (a viewer's page and assets, /docs,
/health) and WebSocket upgrades pass through and are listed, not judged. Stop it with
Ctrl-C (SIGINT) or SIGTERM: it prints a summary with the coverage of the contract and
writes the reports.

Options:
  --target URL     the implementation, e.g. http://127.0.0.1:8000 (required)
  --port P         where the proxy listens (default 8001; 0 picks a free port)
  --record FILE.har  also write every exchange forwarded as HAR 1.2 (secrets in headers
                   masked); replay it against another server with --replay FILE.har
  --junit FILE     write JUnit XML (a testcase per operation)
  --json FILE      write the summary, violations and coverage as JSON
  --contract FILE|URL  judge with this OpenAPI document (YAML or JSON) instead of the bundled one
  -h, --help       show this help

Exit status: 0 nothing violated; 1 a violation; 2 could not run (bad target, port in use).
`;

const FLAGS = {
  target: { type: 'string' },
  port: { type: 'string' },
  junit: { type: 'string' },
  json: { type: 'string' },
  record: { type: 'string' },
  contract: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
const DEFAULT_PORT = 8001;

export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
}

export interface ProxyCommandIo extends CommandIo {
  /** Settles when the proxy should stop. */
  stopRequested: Promise<unknown>;
  /** Told the address once the proxy listens (tests use it to find a port-0 proxy). */
  listening?(url: string): void;
}

export async function runProxyCommand(args: string[], io: ProxyCommandIo): Promise<number> {
  let values;
  try {
    values = parseArgs({ args, options: FLAGS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    io.err(`contract proxy: ${(error as Error).message}\n\n${PROXY_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(PROXY_USAGE);
    return 0;
  }
  const target = values.target;
  if (!target) return usageError(io, '--target is required: the implementation to put the proxy in front of, e.g. --target http://127.0.0.1:8000');
  if (!isHttpUrl(target))
    return usageError(io, `--target must be an http(s) URL, got ${JSON.stringify(target)}; e.g. --target http://127.0.0.1:8000`);
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!/^\d+$/.test(values.port ?? '0') || port > 65535)
    return usageError(io, `--port must be a whole number from 0 to 65535, got ${JSON.stringify(values.port)}`);

  const recordFile = values.record;
  if (recordFile !== undefined) {
    // Found unwritable now, before the proxy starts and traffic is lost.
    const problem = writableProblem(recordFile);
    if (problem) return usageError(io, `--record ${recordFile}: ${problem}`);
  }
  const reachable = await reach(target);
  if (reachable !== undefined) {
    io.err(`contract proxy: cannot reach the target ${target} (${reachable}). Is the implementation running? Check --target.\n`);
    return 2;
  }
  const contract = await loadContract(values.contract);
  if (!contract.ok) return usageError(io, contract.message);
  const { document } = contract;
  const recorder: HarRecorder | undefined = recordFile === undefined ? undefined : recordHar(recordFile);
  const started = await startContractProxy({
    target,
    port,
    document,
    onViolation: (violation) => io.out(violationLines(violation)),
    ...(recorder ? { record: recorder.add } : {}),
  });
  if (!started.ok) {
    await recorder?.close().catch(() => undefined);
    io.err(`contract proxy: ${started.message}\n`);
    return 2;
  }
  const { proxy } = started;
  io.out(`contract proxy: listening on ${proxy.url}, forwarding to ${target}; Ctrl-C prints the summary\n`);
  io.listening?.(proxy.url);
  await io.stopRequested;
  await proxy.stop();
  const summary = proxy.summary();
  io.out(renderProxySummary(summary));
  if (recorder) {
    try {
      await recorder.close();
      io.out(`contract proxy: recorded ${recorder.count} exchanges in ${recordFile} (HAR 1.2)\n`);
    } catch (error) {
      io.err(`contract proxy: cannot write --record ${recordFile} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})\n`);
      return 2;
    }
  }
  const written = writeReportFile(values.junit, () => renderProxyJunit(summary)) ?? writeReportFile(values.json, () => renderProxyJson(summary));
  if (written !== undefined) {
    io.err(`contract proxy: ${written}\n`);
    return 2;
  }
  return summary.violations.length === 0 ? 0 : 1;
}

/** Why `file` cannot be written, or undefined when it can: its folder must exist and be writable. */
function writableProblem(file: string): string | undefined {
  const folder = path.dirname(path.resolve(file));
  if (!existsSync(folder)) return `its folder ${folder} does not exist; create it or pick another path`;
  try {
    accessSync(folder, constants.W_OK);
    return undefined;
  } catch {
    return `its folder ${folder} is not writable; pick another path`;
  }
}

function usageError(io: CommandIo, message: string): number {
  io.err(`contract proxy: ${message}\n\nRun with --help for usage.\n`);
  return 2;
}

/** Undefined when the target answers anything at all; otherwise why not. Plain http, as the proxy forwards (fetch refuses some ports). */
function reach(target: string): Promise<string | undefined> {
  const url = new URL(target);
  return new Promise((resolve) => {
    const request = (url.protocol === 'https:' ? https : http).get(url, { timeout: 5000 }, (response) => {
      response.resume();
      resolve(undefined);
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 5 s')));
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}
