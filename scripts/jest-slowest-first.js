/**
 * Jest's `testSequencer`: the files that took longest in this machine's latest runs start first,
 * so both workers finish near the same time. Jest keeps such times itself, but per checkout
 * folder: a fresh clone (as CI makes) had none and started files by size, and a long file
 * started last kept one worker busy while the other sat idle. These times are kept in the
 * per-user cache instead (beside the test tools, shared by every clone on the machine), by the
 * file's path in the project. A file never timed goes first, since nothing says it is quick.
 */
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const TIMES_FILE = path.join(os.homedir(), '.cache', 'agent-server-contract', 'jest-file-seconds.json');

function readTimes() {
  try {
    return JSON.parse(readFileSync(TIMES_FILE, 'utf8'));
  } catch {
    return {};
  }
}

const projectPath = (test) => path.relative(test.context.config.rootDir, test.path);

class SlowestFirst extends Sequencer {
  sort(tests) {
    const times = readTimes();
    const seconds = (test) => times[projectPath(test)] ?? Number.POSITIVE_INFINITY;
    // Jest's own order first (by size in a fresh clone), kept among files never timed.
    return [...super.sort(tests)].sort((a, b) => (seconds(a) === seconds(b) ? 0 : seconds(b) - seconds(a)));
  }

  /** Records this run's times over the earlier ones; losing them (a home folder not writable) only loses the order. */
  cacheResults(tests, results) {
    super.cacheResults(tests, results);
    const times = readTimes();
    const byPath = new Map(tests.map((test) => [test.path, test]));
    for (const result of results.testResults) {
      const test = byPath.get(result.testFilePath);
      if (test) times[projectPath(test)] = Math.round(result.perfStats.end - result.perfStats.start) / 1000;
    }
    const written = `${TIMES_FILE}.${process.pid}`;
    try {
      mkdirSync(path.dirname(TIMES_FILE), { recursive: true });
      writeFileSync(written, JSON.stringify(times, null, 1));
      renameSync(written, TIMES_FILE);
    } catch {
      // the next run starts files in jest's order
    }
  }
}

module.exports = SlowestFirst;
