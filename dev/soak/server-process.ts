/**
 * The real server as a child process, for the soak run and the tests that need signals,
 * environment variables, a second user or the process's memory. Spawned by the shared
 * dev/process/server-process.ts; this side keeps stdout and stderr line by line and waits for the
 * "listening" line, so a caller gets a server that is ready.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ProcessExit, processMemory, spawnServer } from '../process/server-process';

const LISTENING = /listening on (http:\/\/\S+), serving/;
/** Variables the server reads; a test's own environment must not leak into the child through them. */
const SERVER_VARIABLES = /^(HOST|PORT|OH_CONVERSATIONS_PATH|SESSION_API_KEY|OH_SESSION_API_KEYS_\d+|SERVE_STORED_EVENTS_UNCHANGED)$/;

export interface ServerProcessOptions {
  conversationsPath: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: a port that was free a moment ago (see findFreePort). */
  port?: number;
  /** More flags for src/cli/start.ts. */
  args?: readonly string[];
  /** Variables for the child, on top of this process's environment minus the server's own variables. */
  env?: Readonly<Record<string, string>>;
  /** Subject the server to file permissions even as root: a permission fault is otherwise no fault for root. */
  obeyFilePermissions?: boolean;
  /** How long to wait for the "listening" line; default 60 s (a loaded CI machine compiles slowly). */
  startTimeoutMs?: number;
}

export interface ServerProcess {
  url: string;
  pid: number;
  stdout: string[];
  /** The JSON log lines and anything else the server wrote to stderr. */
  stderr: string[];
  exited: Promise<ProcessExit>;
  kill(signal: NodeJS.Signals): void;
  /** Resident set size in kB from /proc/<pid>/status; undefined where there is no /proc or the process is gone. */
  rssKb(): number | undefined;
  /** SIGTERM, then the exit; SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<ProcessExit>;
}

/** Starts src/cli/start.ts and resolves once it says it is listening; rejects with its stderr if it exits or stays silent. */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  // One index per server process (two servers may read one directory at once), removed when it exits.
  const ownIndex = options.args?.includes('--index-path') ? undefined : path.join(os.tmpdir(), `agent-server-index-${randomUUID()}.sqlite`);
  const server = await spawnServer({
    conversationsPath: options.conversationsPath,
    host: options.host,
    port: options.port,
    args: [...(options.args ?? []), ...(ownIndex ? ['--index-path', ownIndex] : [])],
    env: childEnvironment(options.env ?? {}),
    obeyFilePermissions: options.obeyFilePermissions,
  });
  if (ownIndex) {
    void server.exited.then(() => {
      for (const suffix of ['', '-wal', '-shm', '.lock']) rmSync(`${ownIndex}${suffix}`, { force: true });
    });
  }
  const stdout = collectLines(server.child, 'stdout');
  const stderr = collectLines(server.child, 'stderr');
  const url = await listeningUrl(server.child, stdout, stderr, server.exited, options.startTimeoutMs ?? 60_000);
  return {
    url,
    pid: server.pid,
    stdout,
    stderr,
    exited: server.exited,
    kill: (signal) => server.child.kill(signal),
    rssKb: () => residentKb(server.pid),
    stop: (graceMs = 15_000) => server.stop(graceMs),
  };
}

function childEnvironment(extra: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!SERVER_VARIABLES.test(name)) env[name] = value;
  return { ...env, ...extra };
}

function collectLines(child: ChildProcess, stream: 'stdout' | 'stderr'): string[] {
  const lines: string[] = [];
  let partial = '';
  child[stream]!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
  });
  child[stream]!.on('end', () => {
    if (partial !== '') lines.push(partial);
  });
  return lines;
}

function listeningUrl(child: ChildProcess, stdout: string[], stderr: string[], exited: Promise<ProcessExit>, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const url = stdout.map((line) => LISTENING.exec(line)?.[1]).find(Boolean);
      if (url) finish(() => resolve(url));
    }, 20);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new Error(`the server did not start within ${timeoutMs} ms; stderr:\n${stderr.join('\n')}`)));
    }, timeoutMs);
    void exited.then((exit) =>
      finish(() => reject(new Error(`the server exited (${exit.code ?? exit.signal}) before listening; stderr:\n${stderr.join('\n')}`))),
    );
    let done = false;
    function finish(settle: () => void): void {
      if (done) return;
      done = true;
      clearInterval(poll);
      clearTimeout(timer);
      settle();
    }
  });
}

/** Resident kilobytes, or undefined once the process is gone. */
function residentKb(pid: number): number | undefined {
  try {
    return processMemory(pid).residentBytes / 1024;
  } catch {
    return undefined;
  }
}
