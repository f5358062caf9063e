/**
 * The server's suites written for the directory store (test/server/), again with every server
 * reading a PostgreSQL store filled by the ingester. They share one file, and so one cluster and
 * one load of the modules they import; each stays in a describe of its own, which keeps its
 * hooks to its own tests.
 */
import { serveLiveServersFrom } from '../support/live-server';
import { CLUSTER_TIMEOUT_MS } from './support/database';
import { startSharedCluster, stopSharedCluster } from './support/postgres-backing';

serveLiveServersFrom('postgres');
beforeAll(startSharedCluster, CLUSTER_TIMEOUT_MS);
afterAll(stopSharedCluster);
// Required after the hooks above, so that the cluster is up before each suite's own beforeAll.
describe('test/server/paging.test.ts', () => {
  require('../server/paging.test');
});
describe('test/server/filters.test.ts', () => {
  require('../server/filters.test');
});
describe('test/server/count-and-get.test.ts', () => {
  require('../server/count-and-get.test');
});
describe('test/server/validation.test.ts', () => {
  require('../server/validation.test');
});
describe('test/server/text-search.test.ts', () => {
  require('../server/text-search.test');
});
