/**
 * The suites of stored conversations, the client and the events socket written for the directory
 * store, again on PostgreSQL: the stored events' search, their bytes as stored, the export, the
 * typed client, and the socket's resends, first state frame from the copied base_state.json,
 * appends in the ingester's order, closes and a consumer that never reads.
 */
import { runSuitesOnPostgres } from './support/suites-again';

runSuitesOnPostgres([
  'test/server/stored-events-search.test.ts',
  'test/server/stored-bytes.test.ts',
  'test/server/conversation-export.test.ts',
  'test/server/client.test.ts',
  'test/live/event-socket.test.ts',
]);
