import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAgentServerClient, type AgentServerClient } from '../../src/client';
import type { Event } from '../../src/contract';
import { writeConversation } from '../../src/fixture/layout';
import { createMemoryLogger } from '../../src/log';
import { type ConversationCatalog, createDirectoryCatalog } from '../../src/catalog';
import type { SocketLimits } from '../../src/live/socket-subscription';
import { createApp } from '../../src/server/app';
import { listen } from '../../src/server/listen';
import { openIndexedDirectory } from '../../src/store/sqlite/indexed-directory';
import type { EventStore } from '../../src/store/event-store';
import { postgresBacking } from '../postgres/support/postgres-backing';

/** Which store the servers of this test file read; test/postgres runs suites again on `postgres`. */
let storeKind: StoreKind = 'sqlite';

/** The two stores: the directory's SQLite index (the default) and PostgreSQL filled by the ingester. */
export type StoreKind = 'sqlite' | 'postgres';

export function serveLiveServersFrom(kind: StoreKind): void {
  storeKind = kind;
}

/** The store the servers of this test file read. */
export function liveServerStoreKind(): StoreKind {
  return storeKind;
}

async function openStore(
  root: string,
  logger: ReturnType<typeof createMemoryLogger>,
): Promise<{ store: EventStore; catalog: ConversationCatalog; stop(): Promise<void> }> {
  if (storeKind === 'postgres') return postgresBacking(root, logger);
  const store = openIndexedDirectory(realpathSync(root), { logger, indexPath: indexPathFor(root) });
  return {
    store,
    catalog: createDirectoryCatalog(root, logger),
    async stop() {
      await store.close();
      rmSync(indexPathFor(root), { force: true });
      rmSync(`${indexPathFor(root)}-wal`, { force: true });
      rmSync(`${indexPathFor(root)}-shm`, { force: true });
    },
  };
}

/** A test server's index lives beside its conversations directory, never inside it. */
export function indexPathFor(root: string): string {
  return `${root}.index.sqlite`;
}

export interface TestConversation {
  id: string;
  events: readonly Event[];
}

export interface LiveServer {
  /** The conversations directory the server reads. */
  root: string;
  url: string;
  client: AgentServerClient;
  /** Everything the server logged, one JSON line each. */
  logs: string[];
  /** GET a path of this server, for requests the typed client cannot express. */
  get(pathAndQuery: string, headers?: Record<string, string>): Promise<{ status: number; body: unknown; text: string }>;
  /** GET, keeping only what whole-response assertions compare: the status and the parsed body. */
  statusAndBody(pathAndQuery: string, headers?: Record<string, string>): Promise<{ status: number; body: unknown }>;
  stop(): Promise<void>;
}

/**
 * Starts the real server on 127.0.0.1, port 0, over a fresh temporary conversations
 * directory, configured as in production (response validation off, so stored bytes go out
 * as they are); `validateResponses` turns the contract check of every response on.
 */
export async function startLiveServer(
  conversations: readonly TestConversation[] = [],
  options: {
    sessionApiKeys?: string[];
    validateResponses?: boolean;
    socketLimits?: SocketLimits;
    /** Changes the written conversations before the store reads them: for bytes no serialiser writes. */
    rewrite?: (root: string) => void;
  } = {},
): Promise<LiveServer> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'agent-server-test-'));
  for (const conversation of conversations) writeConversation(root, conversation.id, conversation.events);
  options.rewrite?.(root);
  const logger = createMemoryLogger();
  const { store, catalog, stop: stopStore } = await openStore(root, logger);
  const app = createApp({
    store,
    catalog,
    logger,
    validateResponses: options.validateResponses ?? false,
    sessionApiKeys: options.sessionApiKeys ?? [],
    socketLimits: options.socketLimits,
  });
  const running = await listen(app, '127.0.0.1', 0);
  const get: LiveServer['get'] = async (pathAndQuery, headers = {}) => {
    const response = await fetch(running.url + pathAndQuery, { headers });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, body, text };
  };
  return {
    root,
    url: running.url,
    client: createAgentServerClient({ baseUrl: running.url, sessionApiKey: options.sessionApiKeys?.[0] }),
    logs: logger.lines,
    get,
    async statusAndBody(pathAndQuery, headers = {}) {
      const { status, body } = await get(pathAndQuery, headers);
      return { status, body };
    },
    async stop() {
      await running.stop();
      await stopStore();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
