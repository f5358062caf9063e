/** test/hardening/large-events.test.ts again, with every server reading a PostgreSQL store filled by the ingester. */
import { serveLiveServersFrom } from '../support/live-server';
import { CLUSTER_TIMEOUT_MS } from './support/database';
import { startSharedCluster, stopSharedCluster } from './support/postgres-backing';

serveLiveServersFrom('postgres');
beforeAll(startSharedCluster, CLUSTER_TIMEOUT_MS);
afterAll(stopSharedCluster);
// Required after the hooks above, so that the cluster is up before the suite's own beforeAll.
require('../hardening/large-events.test');
