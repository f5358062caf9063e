/** Jest's globalTeardown: removes the run's cache folder, when this run made it (test-cache-setup.js). */
const { rmSync } = require('node:fs');

module.exports = () => {
  if (process.env.AGENT_SERVER_TEST_CACHE_MADE_BY === String(process.pid))
    rmSync(process.env.AGENT_SERVER_TEST_CACHE, { recursive: true, force: true });
};
