/**
 * `npm start -- [--host H] [--port P] [--conversations-path DIR] [--memory-budget-mb N] [--validate-responses] [--session-api-key KEY ...]`
 * Serves a conversations directory in the reference layout. Flags win over the
 * environment (HOST, PORT, OH_CONVERSATIONS_PATH, MEMORY_BUDGET_MB, SESSION_API_KEY, OH_SESSION_API_KEYS_n);
 * the default is the bundled sample.
 */
import { opendirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../log';
import { createApp } from '../server/app';
import { listen } from '../server/listen';
import { sessionKeysFromEnv } from '../server/session-keys';
import { createDirectoryStore } from '../store/directory-store';
import { checkConversationsRoot } from '../store/store-root';

const SAMPLE_DATA = path.resolve(__dirname, '../../sample-data/conversations');
const USAGE =
  'usage: npm start -- [--host HOST] [--port PORT] [--conversations-path DIR] [--memory-budget-mb N] [--validate-responses] [--session-api-key KEY ...]';

interface StartConfig {
  host: string;
  port: number;
  conversationsPath: string;
  /** Undefined: conversations stay loaded. */
  memoryBudgetBytes: number | undefined;
  validateResponses: boolean;
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
        'memory-budget-mb': { type: 'string' },
        'validate-responses': { type: 'boolean', default: false },
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
  const budgetText = values['memory-budget-mb'] ?? env['MEMORY_BUDGET_MB'];
  if (budgetText !== undefined && !/^[1-9]\d{0,6}$/.test(budgetText)) {
    return `--memory-budget-mb (or MEMORY_BUDGET_MB) must be a whole number of mebibytes from 1 to 9999999, got ${JSON.stringify(budgetText)}.`;
  }
  return {
    host: values.host ?? env['HOST'] ?? '127.0.0.1',
    memoryBudgetBytes: budgetText === undefined ? undefined : Number(budgetText) * 1024 * 1024,
    port,
    conversationsPath: path.resolve(values['conversations-path'] ?? env['OH_CONVERSATIONS_PATH'] ?? SAMPLE_DATA),
    validateResponses: values['validate-responses'],
    sessionApiKeys: [...(values['session-api-key'] ?? []), ...sessionKeysFromEnv(env)],
  };
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

async function main(): Promise<void> {
  const config = readConfig(process.argv.slice(2), process.env);
  if (typeof config === 'string') {
    console.error(config);
    process.exit(config === USAGE ? 0 : 2);
  }
  const rootProblem = await checkConversationsRoot(config.conversationsPath);
  if (rootProblem) {
    console.error(`${rootProblem.message}\nUse --conversations-path DIR or OH_CONVERSATIONS_PATH to choose the directory.`);
    process.exit(2);
  }

  const logger = createLogger();
  const store = createDirectoryStore(config.conversationsPath, { logger, memoryBudgetBytes: config.memoryBudgetBytes });
  const app = createApp({ store, logger, validateResponses: config.validateResponses, sessionApiKeys: config.sessionApiKeys });
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
  const example = exampleConversation(config.conversationsPath);
  console.log(`Agent Server listening on ${running.url}, serving ${config.conversationsPath}`);
  console.log(`API docs: ${running.url}/docs`);
  if (example) console.log(`Try: curl '${running.url}/api/conversations/${example}/events/search?limit=5'`);

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
