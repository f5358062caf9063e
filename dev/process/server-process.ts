/**
 * The one spawner behind the bench, the soak and the tests that need a real process (development only). Scripts
 * run from the checkout's TypeScript under this node and tsx (`node --import tsx <script>`),
 * so tests need no build; the server itself runs either so or compiled, from `dist/`, as
 * `npm start` and the `agent-server` bin run it, with the same node flags. The bench and the
 * soak measure the compiled one. It returns as soon as the process is spawned; how to wait
 * for it is the caller's choice, since the bench times the start from the spawn.
 * `processMemory` reads what such a process holds, for the bench and the soak alike.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../../src/cli/server-node-flags';
import { findFreePort } from './free-port';

const PROJECT_ROOT = path.resolve(__dirname, '../..');
const START_SCRIPT = 'src/cli/start.ts';
const COMPILED_START_SCRIPT = 'dist/src/cli/start.js';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ScriptOptions {
  /** The checkout the script is taken from, and the child's working directory; default this one. */
  readonly projectRoot?: string;
  /** Node flags before `--import tsx`, for instance `--cpu-prof`. */
  readonly nodeFlags?: readonly string[];
  /** The child's whole environment; default this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Subject the process to file permissions even when this one runs as root: it keeps root's
   * identity (so it can enter the checkout wherever that lives) but loses the capabilities that
   * let root read and list what its mode forbids.
   */
  readonly obeyFilePermissions?: boolean;
  /** Where stdout and stderr go; without it they are pipes, read through `child`. */
  readonly logFile?: string;
  /** Opens an IPC channel, for a script that talks to its parent. */
  readonly ipc?: boolean;
  /** Names the process in error messages; default "server". */
  readonly label?: string;
  /** The script is compiled JavaScript: node runs it without tsx. */
  readonly compiled?: boolean;
}

export interface ScriptProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** `performance.now()` just before the process was spawned. */
  readonly spawnedAt: number;
  readonly exited: Promise<ProcessExit>;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; resolves with the exit. */
  stop(graceMs: number): Promise<ProcessExit>;
}

/**
 * Spawns `node [nodeFlags] --import tsx <script> [args]` (without tsx when `compiled`),
 * `script` relative to the project root.
 */
export function spawnScript(script: string, args: readonly string[], options: ScriptOptions = {}): ScriptProcess {
  const root = options.projectRoot ?? PROJECT_ROOT;
  const loader = options.compiled ? [] : ['--import', 'tsx'];
  const nodeArgs = [...(options.nodeFlags ?? []), ...loader, path.join(root, script), ...args];
  const spawnOptions: SpawnOptions = {
    cwd: root,
    ...(options.env ? { env: options.env } : {}),
    // Advanced serialization so that Buffers cross the IPC channel as Buffers.
    ...(options.ipc ? { serialization: 'advanced' } : {}),
  };
  const spawnedAt = performance.now();
  const child = spawnWithOutput(nodeArgs, spawnOptions, options);
  if (child.pid === undefined) {
    throw new Error(`Could not start the ${options.label ?? 'server'} process${options.logFile ? `; see ${options.logFile}` : ''}.`);
  }
  const exited = new Promise<ProcessExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    pid: child.pid,
    spawnedAt,
    exited,
    async stop(graceMs) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const killTimer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const exit = await exited;
      clearTimeout(killTimer);
      return exit;
    },
  };
}

/** Capabilities by which root reads and lists what a file's mode forbids (capabilities(7)). */
const FILE_PERMISSION_OVERRIDES = '-dac_override,-dac_read_search';

/** Node, or node under util-linux's `setpriv` without the file-permission capabilities when `obeyFilePermissions` asks for it as root. */
function command(nodeArgs: string[], options: ScriptOptions): [string, string[]] {
  if (!options.obeyFilePermissions || process.getuid?.() !== 0) return [process.execPath, nodeArgs];
  return ['setpriv', [`--bounding-set=${FILE_PERMISSION_OVERRIDES}`, `--inh-caps=${FILE_PERMISSION_OVERRIDES}`, '--', process.execPath, ...nodeArgs]];
}

function spawnWithOutput(nodeArgs: string[], spawnOptions: SpawnOptions, options: ScriptOptions): ChildProcess {
  const ipc = options.ipc ? ['ipc' as const] : [];
  const [program, args] = command(nodeArgs, options);
  if (options.logFile === undefined) return spawn(program, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe', ...ipc] });
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  // A file descriptor rather than a pipe: nothing in this process has to drain it under load.
  const log = openSync(options.logFile, 'w');
  try {
    return spawn(program, args, { ...spawnOptions, stdio: ['ignore', log, log, ...ipc] });
  } finally {
    closeSync(log);
  }
}

export interface ServerOptions extends ScriptOptions {
  /** Undefined for a server given `--database-url` in `args`. */
  readonly conversationsPath: string | undefined;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default: a port that was free a moment ago (see findFreePort). */
  readonly port?: number;
  /** More flags for src/cli/start.ts. */
  readonly args?: readonly string[];
}

export interface SpawnedServer extends ScriptProcess {
  /** `http://<host>:<port>` as it was told to listen, no trailing slash. */
  readonly url: string;
}

/**
 * Spawns the server (src/cli/start.ts, or dist/src/cli/start.js when `compiled`) and returns at once, without waiting for it to listen: the bench
 * polls it from the spawn, the soak waits for its "listening" line.
 */
export async function spawnServer(options: ServerOptions): Promise<SpawnedServer> {
  const host = options.host ?? '127.0.0.1';
  // A wildcard address cannot be probed; a port free on loopback is free enough for it.
  const port = options.port ?? (await findFreePort(host === '0.0.0.0' ? '127.0.0.1' : host));
  const flags = [
    '--host',
    host,
    '--port',
    String(port),
    ...(options.conversationsPath === undefined ? [] : ['--conversations-path', options.conversationsPath]),
    ...(options.args ?? []),
  ];
  const nodeFlags = [...SERVER_NODE_FLAGS, ...(options.nodeFlags ?? [])];
  const script = options.compiled ? compiledStartScript(options.projectRoot ?? PROJECT_ROOT) : START_SCRIPT;
  return { ...spawnScript(script, flags, { ...options, nodeFlags }), url: `http://${host}:${port}` };
}

/** The compiled server, after checking it was built: measuring a stale or missing build would mislead. */
function compiledStartScript(projectRoot: string): string {
  if (!existsSync(path.join(projectRoot, COMPILED_START_SCRIPT))) {
    throw new Error(`${COMPILED_START_SCRIPT} is missing: run \`npm run build\` first.`);
  }
  return COMPILED_START_SCRIPT;
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

/** Starts the process's VmHWM again from what is resident now, so a later peak is of what came after (Linux only). */
export function resetPeakResident(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}
