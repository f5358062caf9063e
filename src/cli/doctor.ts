#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { DOCTOR_FLAGS, DOCTOR_USAGE, findApiKeyArgument, interpretFlags } from '../doctor/arguments';
import { runDoctor } from '../doctor/doctor';
import { formatJson, formatText, hasFailure, redactSecret } from '../doctor/report';
import { packageVersion } from '../package-info';
import { asksForVersion } from './version-flag';

const EXIT_OK = 0;
const EXIT_CHECK_FAILED = 1;
const EXIT_BAD_ARGUMENTS = 2;

const args = process.argv.slice(2);
const mask = (text: string): string => redactSecret(text, findApiKeyArgument(args) ?? '');

async function main(): Promise<number> {
  if (asksForVersion(args)) {
    process.stdout.write(`${packageVersion()}\n`);
    return EXIT_OK;
  }
  let flags;
  try {
    flags = parseArgs({ args, options: DOCTOR_FLAGS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(mask(`doctor: ${error instanceof Error ? error.message : String(error)}\n\n${DOCTOR_USAGE}`));
    return EXIT_BAD_ARGUMENTS;
  }
  const request = interpretFlags(flags);
  if (request.kind === 'help') {
    process.stdout.write(DOCTOR_USAGE);
    return EXIT_OK;
  }
  if (request.kind === 'invalid') {
    process.stderr.write(mask(`doctor: ${request.error}\n\n${DOCTOR_USAGE}`));
    return EXIT_BAD_ARGUMENTS;
  }
  const outcome = await runDoctor(request.options);
  if (!outcome.ok) {
    process.stderr.write(mask(`doctor: ${outcome.error}\n`));
    return EXIT_BAD_ARGUMENTS;
  }
  process.stdout.write(request.json ? formatJson(outcome.checks) : formatText(outcome.checks));
  return hasFailure(outcome.checks) ? EXIT_CHECK_FAILED : EXIT_OK;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(mask(`doctor: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`));
    process.exitCode = EXIT_CHECK_FAILED;
  },
);
