/**
 * test/catalog/catalog.test.ts again, with every server reading a PostgreSQL store filled by
 * the ingester: the catalog answers from what it copied of meta.json and base_state.json.
 * The trajectory download, which needs the conversation's files, is answered as documented.
 */
import { conversationId } from '../support/events';
import { serveLiveServersFrom, startLiveServer } from '../support/live-server';
import { writeConversationState } from '../support/conversation-state';
import { CLUSTER_TIMEOUT_MS } from './support/database';
import { startSharedCluster, stopSharedCluster } from './support/postgres-backing';

serveLiveServersFrom('postgres');
beforeAll(startSharedCluster, CLUSTER_TIMEOUT_MS);
afterAll(stopSharedCluster);
// Required after the hooks above, so that the cluster is up before the suite's own beforeAll.
require('../catalog/catalog.test');

test('the trajectory download of a known conversation is a 404 saying the store holds no conversation files', async () => {
  const server = await startLiveServer();
  try {
    writeConversationState(server.root, conversationId(1), { createdAt: '2026-11-01T10:00:00', updatedAt: '2026-11-01T10:00:00' });
    expect((await server.statusAndBody(`/api/conversations/${conversationId(1)}`)).status).toBe(200);
    const { status, body } = await server.statusAndBody(`/api/file/download-trajectory/${conversationId(1)}`);
    expect({ status, detail: (body as { detail: string }).detail }).toEqual({
      status: 404,
      detail: expect.stringContaining("this server's store holds no conversation files"),
    });
  } finally {
    await server.stop();
  }
});
