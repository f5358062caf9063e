/**
 * The servers under test run as child processes, as a user would start them, so that the
 * load generator in this process never shares an event loop with them and each server's
 * memory can be read on its own.
 */
import { readFileSync } from 'node:fs';
import { SERVER_NODE_FLAGS } from '../../src/cli/server-node-flags';
import { type ScriptProcess, type SpawnedServer, spawnScript, spawnServer } from '../process/server-process';
import { getOk, timedGet } from './http-get';
import type { ListeningMessage, PrecomputedRoute, RoutesMessage } from './precomputed-server';

export const BENCH_HOST = '127.0.0.1';

export interface ServerProcess {
  readonly label: string;
  readonly pid: number;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly baseUrl: string;
  /** `performance.now()` just before the process was spawned. */
  readonly spawnedAt: number;
  /** Where the process's stdout and stderr go. */
  readonly logFile: string;
  /** SIGTERM, then SIGKILL if it has not exited within a few seconds. */
  stop(): Promise<void>;
}

export interface OurServerOptions {
  readonly repoRoot: string;
  /** Undefined when `serverArgs` name a database. */
  readonly conversationsRoot: string | undefined;
  readonly validateResponses: boolean;
  /** Extra node flags, for instance `--cpu-prof`. */
  readonly nodeFlags: readonly string[];
  readonly logFile: string;
  /** More command-line flags for the server, for instance `--memory-budget-mb 64`. */
  readonly serverArgs?: readonly string[];
}

/**
 * Spawns the compiled server (`node dist/src/cli/start.js`, as `npm start` runs it) on a free
 * loopback port and returns at once, without waiting for it to listen: the cold-open figure
 * starts at the spawn.
 */
export async function spawnOurServer(label: string, options: OurServerOptions): Promise<ServerProcess> {
  const server = await spawnServer({
    label: `${label} server`,
    projectRoot: options.repoRoot,
    host: BENCH_HOST,
    conversationsPath: options.conversationsRoot,
    args: [...(options.validateResponses ? ['--validate-responses'] : []), ...(options.serverArgs ?? [])],
    nodeFlags: options.nodeFlags,
    logFile: options.logFile,
    compiled: true,
  });
  return serverProcess(label, server, server.url, options.logFile);
}

/**
 * The servers that answer with our server's bytes, precomputed (precomputed-server.ts).
 * The framework floor is our application, so it runs with our server's node flags.
 */
export const PRECOMPUTED_SERVERS = {
  baseline: { script: 'dev/bench/baseline-server.ts', nodeFlags: [] },
  'framework floor': { script: 'dev/bench/framework-floor-server.ts', nodeFlags: SERVER_NODE_FLAGS },
  'Express alone': { script: 'dev/bench/express-alone-server.ts', nodeFlags: SERVER_NODE_FLAGS },
} as const;
export type PrecomputedServerName = keyof typeof PRECOMPUTED_SERVERS;

/**
 * Starts a precomputed server and hands it the routes over IPC. Resolves once it listens,
 * with the time that took from the spawn.
 */
export async function startPrecomputedServer(
  name: PrecomputedServerName,
  repoRoot: string,
  routes: readonly PrecomputedRoute[],
  logFile: string,
): Promise<ServerProcess & { readyMs: number }> {
  const { script, nodeFlags } = PRECOMPUTED_SERVERS[name];
  const spawned = spawnScript(script, [], { label: `${name} server`, projectRoot: repoRoot, logFile, ipc: true, nodeFlags });
  const port = await new Promise<number>((resolve, reject) => {
    spawned.child.once('message', (message: ListeningMessage) => resolve(message.port));
    void spawned.exited.then(({ code }) => reject(new Error(`The ${name} server exited (code ${code}) before listening; see ${logFile}.`)));
    const message: RoutesMessage = { routes };
    spawned.child.send(message);
  });
  // For the baseline, spawn to listening of a bare server under the same node and tsx: the floor for our server's start.
  const readyMs = performance.now() - spawned.spawnedAt;
  return { ...serverProcess(name, spawned, `http://${BENCH_HOST}:${port}`, logFile), readyMs };
}

function serverProcess(label: string, spawned: ScriptProcess, baseUrl: string, logFile: string): ServerProcess {
  return {
    label,
    pid: spawned.pid,
    baseUrl,
    spawnedAt: spawned.spawnedAt,
    logFile,
    stop: async () => {
      await spawned.stop(10_000);
    },
  };
}

/**
 * Polls `path` until the server answers 200, then returns the time since spawn in
 * milliseconds. Fails with the end of the server's log when it does not come up.
 */
export async function waitUntilAnswering(server: ServerProcess, urlPath = '/alive', timeoutMs = 30_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    try {
      const response = await timedGet(server.baseUrl + urlPath);
      if (response.status === 200) return performance.now() - server.spawnedAt;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`The ${server.label} server did not answer ${urlPath} within ${timeoutMs} ms. Its log ends:\n${logTail(server.logFile)}`);
}

/**
 * Our compiled server started with `args` (from `projectRoot`, default this checkout),
 * pushed onto `servers` for the caller to stop, once it answers /alive.
 */
export async function startCompiledServer(servers: ScriptProcess[], args: string[], projectRoot?: string): Promise<SpawnedServer> {
  const server = await spawnServer({ conversationsPath: undefined, args, label: 'bench server', compiled: true, projectRoot });
  servers.push(server);
  for (const deadline = performance.now() + 60_000; performance.now() < deadline; ) {
    try {
      await getOk(`${server.url}/alive`);
      return server;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`The bench server ${args.join(' ')} did not answer within 60 s`);
}

/** The last lines of a server's log, for error messages. */
export function logTail(logFile: string, lines = 15): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

// /proc reports CPU times in USER_HZ ticks, which Linux fixes at 100 per second for user space.
const USER_HZ = 100;

/**
 * CPU time the process has used so far (user plus system, all threads), in milliseconds,
 * from /proc/<pid>/stat (Linux only). Resolution is one tick, 10 ms.
 */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces; the numeric fields start after its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const userTicks = Number(fields[11]);
  const systemTicks = Number(fields[12]);
  if (!Number.isFinite(userTicks) || !Number.isFinite(systemTicks)) throw new Error(`Cannot read CPU times from /proc/${pid}/stat.`);
  return ((userTicks + systemTicks) * 1000) / USER_HZ;
}

/** Runs `use` on a server once it is spawned, and stops the server afterwards, whatever happens. */
export async function withServer<T>(starting: Promise<ServerProcess>, use: (server: ServerProcess) => Promise<T>): Promise<T> {
  const server = await starting;
  try {
    return await use(server);
  } finally {
    await server.stop();
  }
}
