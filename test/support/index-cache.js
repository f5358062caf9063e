// Every index a test opens without naming its file goes to a temporary cache folder of the
// test run, never to the user's own cache.
const { chmodSync, mkdtempSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

if (!process.env.AGENT_SERVER_TEST_CACHE) {
  process.env.AGENT_SERVER_TEST_CACHE = mkdtempSync(path.join(os.tmpdir(), 'agent-server-test-cache-'));
  // Servers some tests start as another user (nobody) keep their indexes here too, as in /tmp.
  chmodSync(process.env.AGENT_SERVER_TEST_CACHE, 0o1777);
}
process.env.XDG_CACHE_HOME = process.env.AGENT_SERVER_TEST_CACHE;
