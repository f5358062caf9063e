import { parseArgs } from 'node:util';
import { describeFixtureRun, FIXTURE_FLAGS, FIXTURE_USAGE, interpretFixtureFlags, runFixture } from '../fixture';

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_BAD_ARGUMENTS = 2;

function main(): number {
  let values;
  try {
    values = parseArgs({ args: process.argv.slice(2), options: FIXTURE_FLAGS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    process.stderr.write(`fixture: ${error instanceof Error ? error.message : String(error)}\n\n${FIXTURE_USAGE}`);
    return EXIT_BAD_ARGUMENTS;
  }
  const interpreted = interpretFixtureFlags(values);
  if (interpreted.kind === 'help') {
    process.stdout.write(FIXTURE_USAGE);
    return EXIT_OK;
  }
  if (interpreted.kind === 'invalid') {
    process.stderr.write(`fixture: ${interpreted.error}\n\n${FIXTURE_USAGE}`);
    return EXIT_BAD_ARGUMENTS;
  }
  try {
    process.stdout.write(describeFixtureRun(runFixture(interpreted.request)));
    return EXIT_OK;
  } catch (error) {
    process.stderr.write(`fixture: could not write the conversation: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILED;
  }
}

process.exitCode = main();
