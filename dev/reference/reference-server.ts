/**
 * The reference agent server (OpenHands, Python) as a child process on a free loopback port, run
 * from its pinned environment (dev/python). Everything it writes besides the conversations (its
 * workspace, tmux sockets) stays in a temporary folder of its own, removed on stop.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findFreePort } from '../process/free-port';
import { pythonEnvironment } from '../python/environment';
import { REFERENCE_SERVER, REFERENCE_VERSION } from '../python/toolsets';

export interface ReferenceServerOptions {
  /** The conversations directory it serves and records into (`OH_CONVERSATIONS_PATH`). */
  readonly conversationsPath: string;
  /** Session keys it requires (`OH_SESSION_API_KEYS_<n>`); none by default. */
  readonly sessionApiKeys?: readonly string[];
  /** How long to wait for `/alive`; the first start of a fresh environment compiles its bytecode. */
  readonly startTimeoutMs?: number;
}

export interface ReferenceServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Its process, whose memory the bench reads. */
  readonly pid: number;
  readonly version: string;
  readonly conversationsPath: string;
  /** Its stdout and stderr, for a failing test to show. */
  log(): string;
  /** SIGTERM to its process group, SIGKILL after a grace period; stops its tmux server too. */
  stop(): Promise<void>;
}

/** Conversation runs wait on the model, never on anything remote: these keep it local and quiet. */
const REFERENCE_ENVIRONMENT = {
  OH_ENABLE_VSCODE: 'false',
  OH_ENABLE_VNC: 'false',
  OH_PRELOAD_TOOLS: 'false',
  OH_LEASE_TTL_SECONDS: '0',
  LITELLM_LOCAL_MODEL_COST_MAP: 'True',
  LOG_JSON: 'false',
};

/** Programs the reference runs beside Python: its terminal tool drives tmux, its workspaces are git repositories. */
const REQUIRED_PROGRAMS = [
  ['tmux', '-V'],
  ['git', '--version'],
] as const;

async function missingPrograms(): Promise<string[]> {
  const found = await Promise.all(
    REQUIRED_PROGRAMS.map(
      ([program, versionFlag]) =>
        new Promise<boolean>((resolve) => execFile(program, [versionFlag], { timeout: 10_000 }, (error) => resolve(!error))),
    ),
  );
  return REQUIRED_PROGRAMS.filter((_, index) => !found[index]).map(([program]) => program);
}

export async function startReferenceServer(options: ReferenceServerOptions): Promise<ReferenceServer> {
  const missing = await missingPrograms();
  if (missing.length > 0) {
    throw new Error(
      `The reference agent server ${REFERENCE_VERSION} needs ${missing.join(' and ')}: install with apt-get install -y ${missing.join(' ')}`,
    );
  }
  const environment = await pythonEnvironment(REFERENCE_SERVER);
  const home = mkdtempSync(path.join(os.tmpdir(), 'reference-server-'));
  const logFile = path.join(home, 'server.log');
  const port = await findFreePort('127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  const keys = Object.fromEntries((options.sessionApiKeys ?? []).map((key, index) => [`OH_SESSION_API_KEYS_${index}`, key]));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...REFERENCE_ENVIRONMENT,
    ...keys,
    OH_CONVERSATIONS_PATH: path.resolve(options.conversationsPath),
    TMUX_TMPDIR: home,
    HOME: home,
  };
  delete env.SESSION_API_KEY;
  const output = openSync(logFile, 'w');
  let child: ChildProcess;
  try {
    child = spawn(environment.python, ['-m', 'openhands.agent_server', '--host', '127.0.0.1', '--port', String(port)], {
      cwd: home,
      env,
      detached: true,
      stdio: ['ignore', output, output],
    });
  } finally {
    closeSync(output);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = (): string => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    signalGroup(child, 'SIGTERM');
    const killTimer = setTimeout(() => signalGroup(child, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(killTimer);
    await new Promise<void>((resolve) => execFile('tmux', ['kill-server'], { env }, () => resolve()));
    rmSync(home, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 180_000);
  let exitedEarly = false;
  void exited.then(() => {
    exitedEarly = true;
  });
  while (!(await alive(url))) {
    if (exitedEarly || Date.now() > deadline) {
      const tail = log().trim().split('\n').slice(-15).join('\n');
      await stop();
      throw new Error(`The reference agent server ${REFERENCE_VERSION} did not ${exitedEarly ? 'stay up' : 'answer /alive in time'}:\n${tail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { url, pid: child.pid!, version: REFERENCE_VERSION, conversationsPath: options.conversationsPath, log, stop };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

async function alive(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/alive`, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}
