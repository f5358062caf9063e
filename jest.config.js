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
  testResultsProcessor: '<rootDir>/scripts/jest-results-file.js',
  setupFiles: ['<rootDir>/test/support/index-cache.js'],
};
