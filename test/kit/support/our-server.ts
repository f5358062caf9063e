import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_START_TIME, runFixture } from '../../../src/fixture';
import { createMemoryLogger } from '../../../src/log';
import { createApp } from '../../../src/server/app';
import { listen } from '../../../src/server/listen';
import { createDirectoryStore } from '../../../src/store/directory-store';

export interface OurServer {
  url: string;
  /** 32 hex digits, as the fixture names the directory. */
  conversationId: string;
  manifestPath: string;
  stop(): Promise<void>;
}

/**
 * Our real server (createApp + the directory store, responses validated) on a generated
 * conversation written to a temporary directory in the reference layout, on port 0.
 */
export async function startOurServer(options: { events: number; seed: string; sessionApiKeys?: string[] }): Promise<OurServer> {
  const root = mkdtempSync(path.join(tmpdir(), 'contract-kit-'));
  const conversations = path.join(root, 'conversations');
  const fixture = runFixture({
    out: conversations,
    events: options.events,
    seed: options.seed,
    conversationId: undefined,
    manifest: path.join(root, 'manifest.json'),
    startTime: DEFAULT_START_TIME,
    // Small tool outputs keep pages light; the kit's checks do not depend on payload size.
    largePayloadBytes: 4000,
  });
  const logger = createMemoryLogger();
  const store = createDirectoryStore(conversations, { logger });
  const app = createApp({ store, logger, validateResponses: true, ...(options.sessionApiKeys ? { sessionApiKeys: options.sessionApiKeys } : {}) });
  const running = await listen(app, '127.0.0.1', 0);
  return {
    url: running.url,
    conversationId: fixture.conversationIdHex,
    manifestPath: fixture.manifest,
    async stop() {
      await running.stop();
      await store.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
