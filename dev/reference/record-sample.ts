/**
 * `npm run record-reference`: records the bundled conversation with the pinned reference agent
 * server (dev/reference/record-conversation.ts) and replaces the copy in sample-data/, with a
 * label naming the version that wrote it. Everything the reference wrote for the conversation is
 * kept as it wrote it.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RECORDED_SAMPLE, type RecordedSampleLabel } from '../../src/fixture';
import { REFERENCE_VERSION } from '../python/toolsets';
import { recordConversation, summariseRecording } from './record-conversation';
import { startReferenceServer } from './reference-server';

const SAMPLE_DATA = path.resolve(__dirname, '..', '..', 'sample-data');

async function main(): Promise<void> {
  const conversations = mkdtempSync(path.join(os.tmpdir(), 'record-reference-'));
  try {
    const reference = await startReferenceServer({ conversationsPath: conversations });
    try {
      await recordConversation({ referenceUrl: reference.url, conversationId: RECORDED_SAMPLE.conversationId });
    } catch (error) {
      process.stderr.write(`${reference.log().split('\n').slice(-30).join('\n')}\n`);
      throw error;
    } finally {
      await reference.stop();
    }
    const recorded = path.join(conversations, RECORDED_SAMPLE.conversationId);
    const summary = summariseRecording(recorded);
    const target = path.join(SAMPLE_DATA, 'conversations', RECORDED_SAMPLE.conversationId);
    rmSync(target, { recursive: true, force: true });
    cpSync(recorded, target, { recursive: true });
    const label: RecordedSampleLabel = {
      conversationId: RECORDED_SAMPLE.conversationId,
      referenceVersion: REFERENCE_VERSION,
      recordedWith: 'npm run record-reference',
      ...summary,
    };
    writeFileSync(path.join(SAMPLE_DATA, RECORDED_SAMPLE.labelFile), `${JSON.stringify(label, null, 2)}\n`);
    process.stdout.write(
      `${path.relative(process.cwd(), target)}: ${summary.events} events recorded by the reference ${REFERENCE_VERSION}, kinds ${summary.kinds.join(', ')}\n`,
    );
  } finally {
    rmSync(conversations, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`record-reference: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
