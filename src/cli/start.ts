#!/usr/bin/env -S node --max-semi-space-size=8
/**
 * `agent-server [--host H] [--port P] [--conversations-path DIR | --database-url URL] [--memory-budget-mb N] [--validate-responses] [--serve-stored-events-unchanged] [--session-api-key KEY ...]`
 * (in the checkout: `npm start -- ...`). Serves a conversations directory in the reference
 * layout, or a PostgreSQL database that `npm run ingest` fills. Flags win over the
 * environment (HOST, PORT, OH_CONVERSATIONS_PATH, DATABASE_URL, MEMORY_BUDGET_MB, SERVE_STORED_EVENTS_UNCHANGED,
 * SESSION_API_KEY, OH_SESSION_API_KEYS_n); DATABASE_URL wins over OH_CONVERSATIONS_PATH. Without a path it serves the bundled sample in
 * the checkout, and the reference server's own default, `workspace/conversations` under the
 * working directory, where the package is installed (the sample is not shipped).
 * The shebang carries the node flags of SERVER_NODE_FLAGS (server-node-flags.ts).
 */
import { existsSync, opendirSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../log';
import { type ConversationCatalog, createDirectoryCatalog } from '../catalog';
import { SOCKET_LIMITS } from '../live/socket-subscription';
import { createApp } from '../server/app';
import { listen } from '../server/listen';
import { sessionKeysFromEnv } from '../server/session-keys';
import { IndexFileError, defaultIndexPath } from '../store/sqlite/index-file';
import { openDirectoryStore } from '../store/sqlite/indexed-directory';
import type { EventStore } from '../store/event-store';
import { checkConversationsRoot } from '../store/files/store-root';
import { packageRoot, packageVersion } from '../package-info';
import { parseBoolean } from '../request-value';
import { asksForVersion } from './version-flag';

const SAMPLE_DATA = path.join(packageRoot(), 'sample-data/conversations');
const REFERENCE_DEFAULT_PATH = 'workspace/conversations';
const USAGE = `usage: agent-server [--host HOST] [--port PORT] [--conversations-path DIR | --database-url URL] [--index-path FILE] [--memory-budget-mb N] [--max-sockets-per-conversation N] [--validate-responses] [--serve-stored-events-unchanged] [--session-api-key KEY ...] [--version]
  (in the checkout: npm start -- [flags])
  --host HOST                 address to listen on (HOST; default 127.0.0.1)
  --port PORT                 port, 0 for any free one (PORT; default 8000)
  --conversations-path DIR    the conversations directory (OH_CONVERSATIONS_PATH; default: the
                              bundled sample in the checkout, else ./${REFERENCE_DEFAULT_PATH})
  --database-url URL          serve a PostgreSQL database filled by the ingester instead
                              (DATABASE_URL; see docs/deployment.md)
  --index-path FILE           the SQLite index of the conversations directory (INDEX_PATH;
                              default: a file under $XDG_CACHE_HOME or ~/.cache/agent-server-contract
                              named after the directory; nothing is written inside the directory)
  --memory-budget-mb N        MiB the server may hold beyond its idle size; a quarter of it is the
                              index's page cache (MEMORY_BUDGET_MB; default 192)
  --max-sockets-per-conversation N
                              events sockets one conversation may have open; one more is
                              closed 1013 (MAX_SOCKETS_PER_CONVERSATION; default 50, the reference's)
  --validate-responses        check every response against the contract (slower)
  --serve-stored-events-unchanged
                              serve stored events byte for byte, properties the contract does
                              not list included: answers then go beyond the contract
                              (SERVE_STORED_EVENTS_UNCHANGED=1; default off)
  --session-api-key KEY       require X-Session-API-Key on /api/* (repeatable; SESSION_API_KEY,
                              OH_SESSION_API_KEYS_0, _1, ...)
  --version                   print the version`;

/** The sample exists only in the checkout; an installed copy serves what the reference would. */
function defaultConversationsPath(): string {
  return existsSync(SAMPLE_DATA) ? SAMPLE_DATA : REFERENCE_DEFAULT_PATH;
}

interface StartConfig {
  host: string;
  port: number;
  conversationsPath: string;
  /** When set, the PostgreSQL database to serve instead of a directory. */
  databaseUrl: string | undefined;
  /** Bounds the index's page cache; undefined: SQLite's default. */
  memoryBudgetBytes: number | undefined;
  /** The index file of the conversations directory; undefined: the user's cache folder (defaultIndexPath). */
  indexPath: string | undefined;
  /** Undefined: the reference's 50. */
  maxSocketsPerConversation: number | undefined;
  validateResponses: boolean;
  /** Serve stored events with the properties the contract does not list (answers then go beyond the contract). */
  serveStoredEventsUnchanged: boolean;
  sessionApiKeys: string[];
}

function readConfig(argv: string[], env: NodeJS.ProcessEnv): StartConfig | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        'conversations-path': { type: 'string' },
        'database-url': { type: 'string' },
        'memory-budget-mb': { type: 'string' },
        'index-path': { type: 'string' },
        'max-sockets-per-conversation': { type: 'string' },
        'validate-responses': { type: 'boolean', default: false },
        'serve-stored-events-unchanged': { type: 'boolean' },
        'session-api-key': { type: 'string', multiple: true },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    return `${(error as Error).message}\n${USAGE}`;
  }
  if (values.help) return USAGE;
  const portText = values.port ?? env['PORT'] ?? '8000';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) return `--port must be a whole number from 0 to 65535, got ${JSON.stringify(portText)}.`;
  const unchanged = values['serve-stored-events-unchanged'] ?? envSwitch(env['SERVE_STORED_EVENTS_UNCHANGED']);
  if (typeof unchanged === 'string') return unchanged;
  if (unchanged && values['validate-responses']) {
    return '--serve-stored-events-unchanged serves properties the contract does not list, which --validate-responses would reject in every answer: pass one of them.';
  }
  if (values['database-url'] !== undefined && values['conversations-path'] !== undefined) {
    return `Pass either --conversations-path or --database-url, not both.\n${USAGE}`;
  }
  const budgetText = values['memory-budget-mb'] ?? env['MEMORY_BUDGET_MB'];
  if (budgetText !== undefined && !/^[1-9]\d{0,6}$/.test(budgetText)) {
    return `--memory-budget-mb (or MEMORY_BUDGET_MB) must be a whole number of mebibytes from 1 to 9999999, got ${JSON.stringify(budgetText)}.`;
  }
  const socketsText = values['max-sockets-per-conversation'] ?? env['MAX_SOCKETS_PER_CONVERSATION'];
  if (socketsText !== undefined && !/^[1-9]\d{0,5}$/.test(socketsText)) {
    return `--max-sockets-per-conversation (or MAX_SOCKETS_PER_CONVERSATION) must be a whole number from 1 to 999999, got ${JSON.stringify(socketsText)}.`;
  }
  return {
    maxSocketsPerConversation: socketsText === undefined ? undefined : Number(socketsText),
    databaseUrl: values['database-url'] ?? (values['conversations-path'] === undefined ? env['DATABASE_URL'] || undefined : undefined),
    host: values.host ?? env['HOST'] ?? '127.0.0.1',
    memoryBudgetBytes: budgetText === undefined ? undefined : Number(budgetText) * 1024 * 1024,
    indexPath: values['index-path'] === undefined ? env['INDEX_PATH'] || undefined : path.resolve(values['index-path']),
    port,
    conversationsPath: path.resolve(values['conversations-path'] ?? env['OH_CONVERSATIONS_PATH'] ?? defaultConversationsPath()),
    validateResponses: values['validate-responses'],
    serveStoredEventsUnchanged: unchanged,
    sessionApiKeys: [...(values['session-api-key'] ?? []), ...sessionKeysFromEnv(env)],
  };
}

/** An on/off environment variable: unset or empty is off; anything but the listed words is a mistake worth naming. */
function envSwitch(value: string | undefined): boolean | string {
  const text = value ?? '';
  if (text.trim() === '') return false;
  // Read as the server reads a boolean in a request (pydantic's words), so one spelling means one thing everywhere.
  const reading = parseBoolean(text);
  if (reading.ok) return reading.value;
  return `SERVE_STORED_EVENTS_UNCHANGED must be 1/true/yes/on/t/y or 0/false/no/off/f/n, got ${JSON.stringify(value)}.`;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** A conversation with events, preferring a larger one so the printed example shows paging. */
function exampleConversation(root: string): string | undefined {
  const ids = readdirSync(root).filter((name) => /^[0-9a-f]{32}$/.test(name));
  const eventFiles = new Map(ids.map((id) => [id, countUpTo(path.join(root, id, 'events'), 200)]));
  return ids.sort((a, b) => eventFiles.get(b)! - eventFiles.get(a)!)[0];
}

/** Entries of a directory, counting no further than `limit`: a real one may hold 100k files. */
function countUpTo(directory: string, limit: number): number {
  let count = 0;
  try {
    const listing = opendirSync(directory);
    while (count < limit && listing.readSync()) count++;
    listing.closeSync();
  } catch {
    // No events directory: no events.
  }
  return count;
}

/** A curl line that works as printed; with keys it reads the key from the shell rather than printing one. */
function exampleCurl(url: string, conversationId: string, needsKey: boolean): string {
  const request = `'${url}/api/conversations/${conversationId}/events/search?limit=5'`;
  if (!needsKey) return `Try: curl ${request}`;
  return `Try: curl -H "X-Session-API-Key: $SESSION_API_KEY" ${request}   (with SESSION_API_KEY set to one of the server's keys)`;
}

/**
 * The store the configuration names, and what it serves in words; exits with a message
 * naming the fix when it cannot be used. The PostgreSQL store and its driver are loaded
 * only when asked for: a directory store's start does not pay for them.
 */
async function openStore(
  config: StartConfig,
  logger: ReturnType<typeof createLogger>,
): Promise<{ store: EventStore; catalog?: ConversationCatalog; served: string }> {
  if (config.databaseUrl !== undefined) {
    const { DatabaseStartError, openPostgresStore } =
      require('../store/postgres/postgres-store') as typeof import('../store/postgres/postgres-store');
    const { redactedUrl } = require('../store/postgres/connection') as typeof import('../store/postgres/connection');
    try {
      const store = await openPostgresStore(config.databaseUrl, { logger });
      return { store, catalog: store.catalog, served: redactedUrl(config.databaseUrl) };
    } catch (error) {
      if (!(error instanceof DatabaseStartError)) throw error;
      console.error(error.message);
      process.exit(2);
    }
  }
  const rootProblem = await checkConversationsRoot(config.conversationsPath);
  if (rootProblem) {
    console.error(`${rootProblem.message}\nUse --conversations-path DIR or OH_CONVERSATIONS_PATH to choose the directory.`);
    process.exit(2);
  }
  const realRoot = realpathSync(config.conversationsPath);
  const indexPath = config.indexPath ?? defaultIndexPath(realRoot);
  try {
    const store = openDirectoryStore(realRoot, {
      logger,
      indexPath: config.indexPath,
      storedEvents: config.serveStoredEventsUnchanged ? 'as-stored' : 'contract',
      memoryBudgetBytes: config.memoryBudgetBytes,
      onFatal: (error) => {
        console.error(error.message);
        process.exit(1);
      },
    });
    return { store, catalog: createDirectoryCatalog(config.conversationsPath, logger), served: `${config.conversationsPath} (index ${indexPath})` };
  } catch (error) {
    if (!(error instanceof IndexFileError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  if (asksForVersion(process.argv.slice(2))) {
    console.log(packageVersion());
    process.exit(0);
  }
  const config = readConfig(process.argv.slice(2), process.env);
  if (config === USAGE) {
    console.log(USAGE);
    process.exit(0);
  }
  if (typeof config === 'string') {
    console.error(config);
    process.exit(2);
  }
  const logger = createLogger();
  const { store, catalog, served } = await openStore(config, logger);
  const socketLimits =
    config.maxSocketsPerConversation === undefined ? undefined : { ...SOCKET_LIMITS, maxSocketsPerConversation: config.maxSocketsPerConversation };
  const app = createApp({ store, catalog, socketLimits, logger, validateResponses: config.validateResponses, sessionApiKeys: config.sessionApiKeys });
  let running;
  try {
    running = await listen(app, config.host, config.port);
  } catch (error) {
    console.error(`Cannot listen on ${config.host}:${config.port}: ${(error as Error).message}. Pick another --port or stop what is using it.`);
    await store.close();
    process.exit(2);
  }

  if (config.sessionApiKeys.length === 0 && !isLoopback(config.host)) {
    logger.warn('no session API key is set and the server listens beyond loopback: anyone who can reach the port can read every conversation', {
      host: config.host,
      fix: 'set SESSION_API_KEY or pass --session-api-key',
    });
  }
  const example = config.databaseUrl === undefined ? exampleConversation(config.conversationsPath) : undefined;
  console.log(`Agent Server listening on ${running.url}, serving ${served}`);
  console.log(`API docs: ${running.url}/docs`);
  if (config.serveStoredEventsUnchanged) {
    console.log('Stored events are served unchanged: properties the contract does not list are kept, so answers may go beyond the contract.');
  }
  if (example) console.log(exampleCurl(running.url, example, config.sessionApiKeys.length > 0));

  const { stop } = running;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    await stop();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

void main();
