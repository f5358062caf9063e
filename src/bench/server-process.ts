/**
 * The servers under test run as child processes, as a user would start them, so that the
 * load generator in this process never shares an event loop with them and each server's
 * memory can be read on its own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { findFreePort } from '../free-port';
import { timedGet } from './http-get';

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
  readonly conversationsRoot: string;
  readonly validateResponses: boolean;
  /** Extra node flags, for instance `--cpu-prof`. */
  readonly nodeFlags: readonly string[];
  readonly logFile: string;
}

/**
 * Spawns `node --import tsx src/cli/start.ts` on a free loopback port and returns at once,
 * without waiting for it to listen: the cold-open figure starts at the spawn.
 */
export async function spawnOurServer(label: string, options: OurServerOptions): Promise<ServerProcess> {
  const port = await findFreePort(BENCH_HOST);
  const args = [
    ...options.nodeFlags,
    '--import',
    'tsx',
    path.join(options.repoRoot, 'src/cli/start.ts'),
    '--host',
    BENCH_HOST,
    '--port',
    String(port),
    '--conversations-path',
    options.conversationsRoot,
    ...(options.validateResponses ? ['--validate-responses'] : []),
  ];
  const spawnedAt = performance.now();
  const child = spawnLogged(args, options.repoRoot, options.logFile, false);
  return serverProcess(label, child, `http://${BENCH_HOST}:${port}`, spawnedAt, options.logFile);
}

/** One URL the baseline answers, with the exact bytes our server sent for it. */
export interface BaselineRoute {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

/** Parent to baseline child: everything it will serve. */
export interface BaselineRoutesMessage {
  readonly routes: readonly BaselineRoute[];
}

/** Baseline child to parent: it listens. */
export interface BaselineListeningMessage {
  readonly port: number;
}

/**
 * Starts the bare `node:http` baseline (baseline-server.ts) and hands it the routes over
 * IPC. It listens on port 0 and reports its port back, so there is no race for a port.
 * Resolves once it listens, with the time that took from the spawn.
 */
export async function startBaseline(repoRoot: string, routes: readonly BaselineRoute[], logFile: string): Promise<ServerProcess & { readyMs: number }> {
  const args = ['--import', 'tsx', path.join(repoRoot, 'src/bench/baseline-server.ts')];
  const spawnedAt = performance.now();
  const child = spawnLogged(args, repoRoot, logFile, true);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: BaselineListeningMessage) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`The baseline server exited (code ${code}) before listening; see ${logFile}.`)));
    const message: BaselineRoutesMessage = { routes };
    child.send(message);
  });
  // Spawn to listening of a bare server under the same node and tsx: the floor for our server's start.
  const readyMs = performance.now() - spawnedAt;
  return { ...serverProcess('baseline', child, `http://${BENCH_HOST}:${port}`, spawnedAt, logFile), readyMs };
}

function spawnLogged(args: string[], cwd: string, logFile: string, withIpc: boolean): ChildProcess {
  mkdirSync(path.dirname(logFile), { recursive: true });
  // A file descriptor rather than a pipe: nothing in this process has to drain it under load.
  const log = openSync(logFile, 'w');
  try {
    return spawn(process.execPath, args, {
      cwd,
      stdio: withIpc ? ['ignore', log, log, 'ipc'] : ['ignore', log, log],
      serialization: 'advanced',
    });
  } finally {
    closeSync(log);
  }
}

function serverProcess(label: string, child: ChildProcess, baseUrl: string, spawnedAt: number, logFile: string): ServerProcess {
  if (child.pid === undefined) throw new Error(`Could not start the ${label} server process; see ${logFile}.`);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    label,
    pid: child.pid,
    baseUrl,
    spawnedAt,
    logFile,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killTimer);
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

/** The last lines of a server's log, for error messages. */
export function logTail(logFile: string, lines = 15): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export interface ProcessMemory {
  /** VmRSS: resident now. */
  readonly residentBytes: number;
  /** VmHWM: the most that was ever resident. */
  readonly peakResidentBytes: number;
}

/** Resident memory of a process from /proc/<pid>/status (Linux only). */
export function processMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!match) throw new Error(`/proc/${pid}/status has no ${field} line.`);
    return Number(match[1]) * 1024;
  };
  return { residentBytes: kilobytes('VmRSS'), peakResidentBytes: kilobytes('VmHWM') };
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
