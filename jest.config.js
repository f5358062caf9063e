/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  // The one time limit, for a test that hangs: no test is judged by the clock. Tests wait on
  // conditions (a line printed, a process exited, an answer received), so a machine twice as
  // busy makes them slower, never failed; jest's own default would fail a slow machine's run.
  testTimeout: 15 * 60_000,
  // Two files at a time on the 2-core machine: most of a file's time is spent waiting on the
  // servers, browsers and Python processes it starts. Nothing is shared between files that
  // would clash: ports come from the kernel, folders from mkdtemp, one PostgreSQL cluster per
  // file, and the package tests build their tarball in a copy of the sources under a lock.
  maxWorkers: 2,
  testResultsProcessor: '<rootDir>/scripts/jest-results-file.js',
  testSequencer: '<rootDir>/scripts/jest-slowest-first.js',
  globalSetup: '<rootDir>/test/support/test-cache-setup.js',
  globalTeardown: '<rootDir>/test/support/test-cache-teardown.js',
};
