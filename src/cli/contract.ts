#!/usr/bin/env node
/**
 * `npm run contract -- --base-url URL --conversation-id ID [options]`: runs the contract
 * kit against a server, prints the report, writes --junit/--json, and exits 0 (all
 * required checks passed), 1 (a check failed) or 2 (could not run).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CONTRACT_FLAGS, CONTRACT_USAGE, interpretContractFlags } from '../kit/arguments';
import { renderJson, renderJunit, renderText } from '../kit/report';
import { runContract, type RunResult } from '../kit/run';
import { asksForVersion, packageVersion } from './package-info';

const EXIT_PASSED = 0;
const EXIT_FAILED = 1;
const EXIT_CANNOT_RUN = 2;

async function main(): Promise<number> {
  if (asksForVersion(process.argv.slice(2))) {
    process.stdout.write(`${packageVersion()}\n`);
    return EXIT_PASSED;
  }
  let values;
  try {
    values = parseArgs({ args: process.argv.slice(2), options: CONTRACT_FLAGS, strict: true, allowPositionals: false }).values;
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
  const { run, junitFile, jsonFile } = interpreted.invocation;
  const result = await runContract(run);
  process.stdout.write(renderText(result));
  const written = writeReports(result, junitFile, jsonFile);
  if (written !== undefined) {
    process.stderr.write(`contract: ${written}\n`);
    return EXIT_CANNOT_RUN;
  }
  if (result.outcome === 'cannot-run') return EXIT_CANNOT_RUN;
  return result.outcome === 'passed' ? EXIT_PASSED : EXIT_FAILED;
}

/** Writes the report files; returns what went wrong, if anything. */
function writeReports(result: RunResult, junitFile: string | undefined, jsonFile: string | undefined): string | undefined {
  try {
    if (junitFile) writeReport(junitFile, renderJunit(result));
    if (jsonFile) writeReport(jsonFile, renderJson(result));
    return undefined;
  } catch (error) {
    return `cannot write the report: ${(error as Error).message}. Check that the path is writable.`;
  }
}

function writeReport(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
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
