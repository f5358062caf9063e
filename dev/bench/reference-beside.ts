/**
 * The reference agent server (dev/reference/reference-server.ts) on a copy of a conversation
 * the bench generated, so the index store is measured beside the peer it replaces, on the
 * same events, in the same run.
 *
 * The reference opens only a conversation whose folder holds its own documents: meta.json as
 * its StoredConversation, and base_state.json with the `leaf_event_id` its view walks back
 * from (a leaf it cannot find fails every request with a 500). The generator's documents are
 * the seed's, so the copy is given the ones the reference wrote for the recorded sample
 * (sample-data/), renamed to this conversation, its leaf being the conversation's last event.
 * The reference rewrites those documents when it opens the conversation, which is why it is
 * served a copy.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RECORDED_SAMPLE, hyphenateConversationId, toConversationIdHex } from '../../src/fixture';
import { startReferenceServer } from '../reference/reference-server';

const RECORDED_FOLDER = path.resolve(__dirname, '../../sample-data/conversations', RECORDED_SAMPLE.conversationId);

export interface ReferenceBeside {
  readonly label: string;
  readonly url: string;
  readonly pid: number;
  /** From the spawn until it answered `/alive`. */
  readonly readyMs: number;
  stop(): Promise<void>;
}

/**
 * Starts the reference on a copy, under `work`, of the conversation `conversationId` in `root`,
 * whose last event is `lastEventId`.
 */
export async function startReferenceBeside(root: string, conversationId: string, lastEventId: string, work: string): Promise<ReferenceBeside> {
  const hex = toConversationIdHex(conversationId);
  const copyRoot = path.join(work, 'reference-copy');
  const folder = path.join(copyRoot, hex);
  cpSync(path.join(root, hex), folder, { recursive: true });
  const recordedId = hyphenateConversationId(RECORDED_SAMPLE.conversationId);
  const renamed = (file: string) =>
    JSON.parse(
      readFileSync(path.join(RECORDED_FOLDER, file), 'utf8').replaceAll(recordedId, conversationId).replaceAll(RECORDED_SAMPLE.conversationId, hex),
    ) as Record<string, unknown>;
  writeFileSync(path.join(folder, 'meta.json'), JSON.stringify(renamed('meta.json')));
  writeFileSync(
    path.join(folder, 'base_state.json'),
    JSON.stringify({ ...renamed('base_state.json'), leaf_event_id: lastEventId, last_user_message_id: null }),
  );
  const started = performance.now();
  const server = await startReferenceServer({ conversationsPath: copyRoot });
  return { label: `reference ${server.version}`, url: server.url, pid: server.pid, readyMs: performance.now() - started, stop: server.stop };
}
