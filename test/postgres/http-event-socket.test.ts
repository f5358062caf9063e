/**
 * test/live/event-socket.test.ts again, with every server reading a PostgreSQL store filled
 * by the ingester: resends, the first state frame from the copied base_state.json, appended
 * events in append order (the ingester's numbering), closes and a consumer that never reads.
 */
import { serveLiveServersFrom } from '../support/live-server';
import { CLUSTER_TIMEOUT_MS } from './support/database';
import { startSharedCluster, stopSharedCluster } from './support/postgres-backing';

serveLiveServersFrom('postgres');
beforeAll(startSharedCluster, CLUSTER_TIMEOUT_MS);
afterAll(stopSharedCluster);
// Required after the hooks above, so that the cluster is up before the suite's own beforeAll.
require('../live/event-socket.test');
