import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_START_TIME, runFixture } from '../../../src/fixture';
import { createMemoryLogger } from '../../../src/log';
import { type ConversationCatalog, createDirectoryCatalog } from '../../../src/catalog';
import { createApp } from '../../../src/server/app';
import type { EventStore } from '../../../src/store/event-store';
import { listen } from '../../../src/server/listen';
import { openDirectoryStore } from '../../../src/store/sqlite/indexed-directory';

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
export async function startOurServer(options: {
  events: number;
  seed: string;
  sessionApiKeys?: string[];
  /** Conversations beside the generated one, written into the same directory before the server starts. */
  writeMore?: (conversations: string) => void;
  /** Turns the real store and catalog into faulty ones, for the tests that prove the kit catches a fault. */
  inject?: (parts: { store: EventStore; catalog: ConversationCatalog }) => { store: EventStore; catalog: ConversationCatalog };
}): Promise<OurServer> {
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
  options.writeMore?.(conversations);
  const logger = createMemoryLogger();
  const realStore = openDirectoryStore(conversations, { logger });
  const real = { store: realStore as EventStore, catalog: createDirectoryCatalog(conversations, logger) };
  const { store, catalog } = options.inject ? options.inject(real) : real;
  const app = createApp({
    store,
    catalog,
    logger,
    validateResponses: true,
    ...(options.sessionApiKeys ? { sessionApiKeys: options.sessionApiKeys } : {}),
  });
  const running = await listen(app, '127.0.0.1', 0);
  return {
    url: running.url,
    conversationId: fixture.conversationIdHex,
    manifestPath: fixture.manifest,
    async stop() {
      await running.stop();
      await realStore.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
