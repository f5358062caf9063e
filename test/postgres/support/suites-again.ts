import path from 'node:path';
import { serveLiveServersFrom } from '../../support/live-server';
import { CLUSTER_TIMEOUT_MS } from './database';
import { startSharedCluster, stopSharedCluster } from './postgres-backing';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * Runs test files written for the directory store again, in the calling file, with every server
 * reading a PostgreSQL store filled by the ingester. They share the file's one cluster and one
 * load of the modules they import; each stays in a describe of its own, which keeps its hooks to
 * its own tests. `files` are relative to the project.
 */
export function runSuitesOnPostgres(files: readonly string[]): void {
  serveLiveServersFrom('postgres');
  beforeAll(startSharedCluster, CLUSTER_TIMEOUT_MS);
  afterAll(stopSharedCluster);
  // Required after the hooks above, so that the cluster is up before each suite's own beforeAll.
  for (const file of files)
    describe(file, () => {
      require(path.join(ROOT, file));
    });
}
