/**
 * The reference agent server (dev/reference/reference-server.ts) on conversations the bench
 * generated, so the index store is measured beside the peer it replaces, on the same events,
 * in the same run.
 *
 * The reference opens only a conversation whose folder holds its own documents: meta.json as
 * its StoredConversation, and base_state.json with the `leaf_event_id` its view walks back
 * from (a leaf it cannot find fails every request with a 500). The generator's documents are
 * the seed's, so each conversation is given the ones the reference wrote for the recorded
 * sample (sample-data/), renamed to it, its leaf being its last event. The reference rewrites
 * those documents when it opens a conversation, so it is served a folder of its own, whose
 * event files are links to the bench's: it only reads them, and it is measured last.
 */
import { linkSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RECORDED_SAMPLE, hyphenateConversationId, toConversationIdHex } from '../../src/fixture';
import { startReferenceServer } from '../reference/reference-server';

const RECORDED_FOLDER = path.resolve(__dirname, '../../sample-data/conversations', RECORDED_SAMPLE.conversationId);

export interface BenchConversation {
  readonly id: string;
  readonly lastEventId: string;
}

export interface ReferenceBeside {
  readonly label: string;
  readonly url: string;
  readonly pid: number;
  /** From the spawn until it answered `/alive`. */
  readonly readyMs: number;
  stop(): Promise<void>;
}

/** Starts the reference on a folder of its own, `copyRoot`, holding `conversations` of `root`. */
export async function startReferenceBeside(root: string, conversations: readonly BenchConversation[], copyRoot: string): Promise<ReferenceBeside> {
  const recordedId = hyphenateConversationId(RECORDED_SAMPLE.conversationId);
  const recorded = (file: string) => readFileSync(path.join(RECORDED_FOLDER, file), 'utf8');
  const meta = recorded('meta.json');
  const state = recorded('base_state.json');
  for (const { id, lastEventId } of conversations) {
    const hex = toConversationIdHex(id);
    const renamed = (text: string) =>
      JSON.parse(text.replaceAll(recordedId, id).replaceAll(RECORDED_SAMPLE.conversationId, hex)) as Record<string, unknown>;
    const events = path.join(root, hex, 'events');
    const folder = path.join(copyRoot, hex);
    mkdirSync(path.join(folder, 'events'), { recursive: true });
    for (const name of readdirSync(events)) linkSync(path.join(events, name), path.join(folder, 'events', name));
    writeFileSync(path.join(folder, 'meta.json'), JSON.stringify(renamed(meta)));
    writeFileSync(
      path.join(folder, 'base_state.json'),
      JSON.stringify({ ...renamed(state), leaf_event_id: lastEventId, last_user_message_id: null }),
    );
  }
  const started = performance.now();
  const server = await startReferenceServer({ conversationsPath: copyRoot });
  return { label: `reference ${server.version}`, url: server.url, pid: server.pid, readyMs: performance.now() - started, stop: server.stop };
}
