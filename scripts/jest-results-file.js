/**
 * Jest's `testResultsProcessor`: when JEST_RESULTS_FILE names a file, the run's totals are
 * written there as JSON, so `.ci/run` can print its closing line while running the README's
 * test command unchanged; beside them, each test file's wall time, slowest first, so a slow
 * suite shows where its time goes. Without the variable it does nothing.
 */
const { writeFileSync } = require('node:fs');
const { relative } = require('node:path');

module.exports = (results) => {
  const file = process.env.JEST_RESULTS_FILE;
  if (file) {
    const { numPassedTests, numFailedTests, numRuntimeErrorTestSuites, numTotalTests } = results;
    const fileSeconds = results.testResults
      .map((suite) => ({
        file: relative(process.cwd(), suite.testFilePath),
        seconds: Math.round((suite.perfStats.end - suite.perfStats.start) / 100) / 10,
      }))
      .sort((a, b) => b.seconds - a.seconds);
    writeFileSync(file, JSON.stringify({ numPassedTests, numFailedTests, numRuntimeErrorTestSuites, numTotalTests, fileSeconds }, null, 1));
  }
  return results;
};
