/**
 * The hardening suites written for the directory store (test/hardening/), again with every
 * server reading a PostgreSQL store filled by the ingester. They share one file, and so one
 * cluster and one load of the modules they import; each stays in a describe of its own, which
 * keeps its hooks to its own tests. (large-events sets its own time limit, which would be the
 * whole file's: it keeps its file, test/postgres/http-large-events.test.ts.)
 */
import { serveLiveServersFrom } from '../support/live-server';
import { CLUSTER_TIMEOUT_MS } from './support/database';
import { startSharedCluster, stopSharedCluster } from './support/postgres-backing';

serveLiveServersFrom('postgres');
beforeAll(startSharedCluster, CLUSTER_TIMEOUT_MS);
afterAll(stopSharedCluster);
// Required after the hooks above, so that the cluster is up before each suite's own beforeAll.
describe('test/hardening/deep-json.test.ts', () => {
  require('../hardening/deep-json.test');
});
describe('test/hardening/fuzz.test.ts', () => {
  require('../hardening/fuzz.test');
});
describe('test/hardening/hostile-cases.test.ts', () => {
  require('../hardening/hostile-cases.test');
});
describe('test/hardening/hostile-files.test.ts', () => {
  require('../hardening/hostile-files.test');
});
describe('test/hardening/secret-policy.test.ts', () => {
  require('../hardening/secret-policy.test');
});
