/**
 * Jest's `testResultsProcessor`: when JEST_RESULTS_FILE names a file, the run's totals are
 * written there as JSON, so `.ci/run` can print its closing line while running the README's
 * test command unchanged. Without the variable it does nothing.
 */
const { writeFileSync } = require('node:fs');

module.exports = (results) => {
  const file = process.env.JEST_RESULTS_FILE;
  if (file) {
    const { numPassedTests, numFailedTests, numRuntimeErrorTestSuites, numTotalTests } = results;
    writeFileSync(file, JSON.stringify({ numPassedTests, numFailedTests, numRuntimeErrorTestSuites, numTotalTests }));
  }
  return results;
};
