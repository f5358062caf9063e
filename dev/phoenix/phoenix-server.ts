/**
 * Arize Phoenix from its pinned Python toolset, started for a test: HTTP on 127.0.0.1 at a
 * free port, its database and files in a temporary folder, its usage telemetry off. Phoenix
 * has no setting for its gRPC listener's address, which takes every interface: it gets a free
 * port of its own and lives only as long as the test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findFreePort } from '../process/free-port';
import { pythonEnvironment } from '../python/environment';
import { PHOENIX } from '../python/toolsets';

export interface PhoenixServer {
  /** The HTTP base URL: the UI, the REST API under /v1, OTLP/HTTP at /v1/traces. */
  url: string;
  /** What Phoenix printed, for a failing test's message. */
  output(): string;
  stop(): Promise<void>;
}

export async function startPhoenix(options: { startTimeoutMs?: number } = {}): Promise<PhoenixServer> {
  const environment = await pythonEnvironment(PHOENIX);
  const workingDirectory = mkdtempSync(path.join(os.tmpdir(), 'phoenix-'));
  const [port, grpcPort] = [await findFreePort('127.0.0.1'), await findFreePort('127.0.0.1')];
  const child: ChildProcess = spawn(environment.executable('phoenix'), ['serve'], {
    cwd: workingDirectory,
    env: {
      PATH: process.env.PATH,
      HOME: workingDirectory,
      PHOENIX_WORKING_DIR: workingDirectory,
      PHOENIX_HOST: '127.0.0.1',
      PHOENIX_PORT: String(port),
      PHOENIX_GRPC_PORT: String(grpcPort),
      PHOENIX_TELEMETRY_ENABLED: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  const keep = (chunk: Buffer) => {
    printed = (printed + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(workingDirectory, { recursive: true, force: true });
  };
  const deadline = Date.now() + (options.startTimeoutMs ?? 180_000);
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`Phoenix exited while starting:\n${printed}`);
    }
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Phoenix did not answer on ${url} in time:\n${printed}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return { url, output: () => printed, stop };
}
