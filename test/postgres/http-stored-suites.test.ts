/**
 * The suites of stored conversations, the client and the events socket written for the directory
 * store, again with every server reading a PostgreSQL store filled by the ingester: the stored
 * events' search, their bytes as stored, the export, the typed client, and the socket's resends,
 * first state frame from the copied base_state.json, appends in the ingester's order, closes and
 * a consumer that never reads. One file, and so one cluster and one load of the modules they
 * import; each suite in a describe of its own, which keeps its hooks to its own tests.
 */
import { serveLiveServersFrom } from '../support/live-server';
import { CLUSTER_TIMEOUT_MS } from './support/database';
import { startSharedCluster, stopSharedCluster } from './support/postgres-backing';

serveLiveServersFrom('postgres');
beforeAll(startSharedCluster, CLUSTER_TIMEOUT_MS);
afterAll(stopSharedCluster);
// Required after the hooks above, so that the cluster is up before each suite's own beforeAll.
describe('test/server/stored-events-search.test.ts', () => {
  require('../server/stored-events-search.test');
});
describe('test/server/stored-bytes.test.ts', () => {
  require('../server/stored-bytes.test');
});
describe('test/server/conversation-export.test.ts', () => {
  require('../server/conversation-export.test');
});
describe('test/server/client.test.ts', () => {
  require('../server/client.test');
});
describe('test/live/event-socket.test.ts', () => {
  require('../live/event-socket.test');
});
