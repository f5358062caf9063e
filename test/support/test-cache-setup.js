/**
 * Jest's globalSetup: every index a test opens without naming its file, in the test process or
 * in a server it starts, goes to a temporary cache folder of the run (removed by
 * test-cache-teardown.js), never to the user's own cache. It is set here, in jest's own process
 * before its workers start, because the environment a test file sees is a copy: what a setup
 * file writes there never reaches the processes a test spawns.
 */
const { chmodSync, mkdtempSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = () => {
  if (!process.env.AGENT_SERVER_TEST_CACHE) {
    process.env.AGENT_SERVER_TEST_CACHE = mkdtempSync(path.join(os.tmpdir(), 'agent-server-test-cache-'));
    process.env.AGENT_SERVER_TEST_CACHE_MADE_BY = String(process.pid);
    // Servers some tests start as another user (nobody) keep their indexes here too, as in /tmp.
    chmodSync(process.env.AGENT_SERVER_TEST_CACHE, 0o1777);
  }
  process.env.XDG_CACHE_HOME = process.env.AGENT_SERVER_TEST_CACHE;
};
