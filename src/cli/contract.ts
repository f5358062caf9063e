#!/usr/bin/env node
/**
 * `npm run contract -- --base-url URL --conversation-id ID [options]`: runs the contract
 * kit against a server, prints the report, writes --junit/--json, and exits 0 (all
 * required checks passed), 1 (a check failed) or 2 (could not run).
 * `npm run contract -- proxy ...`, `... diff ...` and `... fixture ...` are the validating
 * proxy, the contract diff and the fixture generator whose manifest `--fixture` reads
 * (src/kit/proxy/proxy-command.ts, src/kit/diff/diff-command.ts, src/fixture/fixture-command.ts);
 * `... export ...` pushes stored conversations as traces to an OTLP collector (src/export/trace/push-command.ts).
 */
import { parseArgs } from 'node:util';
import { CONTRACT_FLAGS, CONTRACT_USAGE, interpretContractFlags, type ReplayInvocation } from '../kit/run/arguments';
import { runReplay } from '../kit/replay/replay';
import type { RunResult } from '../kit/run/result';
import { loadContract, readContractFile } from '../kit/contract-source';
import { runDiffCommand } from '../kit/diff/diff-command';
import { runExportCommand } from '../export/trace/push-command';
import { runFixtureCommand } from '../fixture/fixture-command';
import { runProxyCommand } from '../kit/proxy/proxy-command';
import { renderJson, renderJunit, renderText } from '../kit/run/report';
import { writeReportFile } from '../kit/report-file';
import { runContract } from '../kit/run/run';
import { packageVersion } from '../package-info';
import { asksForVersion } from './version-flag';

const EXIT_PASSED = 0;
const EXIT_FAILED = 1;
const EXIT_CANNOT_RUN = 2;

const io = { out: (text: string) => process.stdout.write(text), err: (text: string) => process.stderr.write(text) };

/** Settles at the first SIGINT or SIGTERM, so the proxy can print its summary before exiting. */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

async function main(): Promise<number> {
  if (asksForVersion(process.argv.slice(2))) {
    process.stdout.write(`${packageVersion()}\n`);
    return EXIT_PASSED;
  }
  const [command, ...rest] = process.argv.slice(2);
  if (command === 'proxy') return runProxyCommand(rest, { ...io, stopRequested: stopSignal() });
  if (command === 'diff') return runDiffCommand(rest, io);
  if (command === 'fixture') return runFixtureCommand(rest, io);
  if (command === 'export') return runExportCommand(rest, { ...io, errIsTerminal: process.stderr.isTTY === true, env: process.env });
  // `run` names the default command, as the README calls it.
  const args = command === 'run' ? rest : process.argv.slice(2);
  let values;
  try {
    values = parseArgs({ args, options: CONTRACT_FLAGS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(`contract: ${(error as Error).message}\n\n${CONTRACT_USAGE}`);
    return EXIT_CANNOT_RUN;
  }
  const interpreted = interpretContractFlags(values, process.env, () => Math.floor(Math.random() * 2 ** 31));
  if (interpreted.kind === 'help') {
    process.stdout.write(CONTRACT_USAGE);
    return EXIT_PASSED;
  }
  if (interpreted.kind === 'invalid') {
    process.stderr.write(`contract: ${interpreted.message}\n\nRun with --help for usage.\n`);
    return EXIT_CANNOT_RUN;
  }
  if (interpreted.kind === 'replay') return replay(interpreted.invocation);
  const { run, junitFile, jsonFile, contractSource, changedSince } = interpreted.invocation;
  const contract = await loadContract(contractSource);
  const old = changedSince === undefined ? undefined : readContractFile(changedSince, `--changed-since ${changedSince}`);
  for (const read of [contract, old]) {
    if (read && !read.ok) {
      process.stderr.write(`contract: ${read.message}\n`);
      return EXIT_CANNOT_RUN;
    }
  }
  const result = await runContract({
    ...run,
    ...(contract.ok ? { document: contract.document } : {}),
    ...(old?.ok ? { changedSince: old.document } : {}),
  });
  return report(result, junitFile, jsonFile);
}

async function replay(invocation: ReplayInvocation): Promise<number> {
  const contract = await loadContract(invocation.contractSource);
  if (!contract.ok) {
    process.stderr.write(`contract: ${contract.message}\n`);
    return EXIT_CANNOT_RUN;
  }
  const result = await runReplay({
    file: invocation.file,
    baseUrl: invocation.baseUrl,
    document: contract.document,
    timeoutMs: invocation.timeoutMs,
    ...(invocation.sessionApiKey !== undefined ? { sessionApiKey: invocation.sessionApiKey } : {}),
    ...(invocation.allow ? { allow: invocation.allow } : {}),
  });
  return report(result, invocation.junitFile, invocation.jsonFile);
}

/** Prints the text report, writes the JUnit and JSON ones, and gives the exit code. */
function report(result: RunResult, junitFile: string | undefined, jsonFile: string | undefined): number {
  process.stdout.write(renderText(result));
  const written = writeReportFile(junitFile, () => renderJunit(result)) ?? writeReportFile(jsonFile, () => renderJson(result));
  if (written !== undefined) {
    process.stderr.write(`contract: ${written}\n`);
    return EXIT_CANNOT_RUN;
  }
  if (result.outcome === 'cannot-run') return EXIT_CANNOT_RUN;
  return result.outcome === 'passed' ? EXIT_PASSED : EXIT_FAILED;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `contract: unexpected error (a bug in the kit): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = EXIT_CANNOT_RUN;
  },
);
