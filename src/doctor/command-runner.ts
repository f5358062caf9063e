import { execFile } from 'node:child_process';

/** How an external command ended: not installed, ran to an exit code, or killed after the time limit. */
export type CommandResult = { kind: 'not-found' } | { kind: 'exited'; code: number; stdout: string; stderr: string } | { kind: 'timed-out' };

/** Runs one command by name with arguments; injected so tests can point it at a fake PATH. */
export type CommandRunner = (command: string, args: readonly string[]) => Promise<CommandResult>;

/** Where to look for commands and how long to let them run. */
export interface CommandRunnerOptions {
  searchPath?: string;
  timeoutMs?: number;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;

/**
 * Creates a runner that looks commands up on `searchPath` (default: this process's PATH) and kills
 * them after `timeoutMs`, so a kubectl waiting on an unreachable cluster cannot hang the doctor.
 * It never throws: a missing command is `not-found`, a failing one is `exited` with its code.
 */
export function createCommandRunner(options: CommandRunnerOptions = {}): CommandRunner {
  const searchPath = options.searchPath ?? process.env['PATH'] ?? '';
  const timeoutMs = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  return (command, args) =>
    new Promise((resolve) => {
      execFile(command, [...args], { env: { ...process.env, PATH: searchPath }, timeout: timeoutMs }, (error, stdout, stderr) => {
        if (error === null) return resolve({ kind: 'exited', code: 0, stdout, stderr });
        if (error.code === 'ENOENT') return resolve({ kind: 'not-found' });
        if (error.killed) return resolve({ kind: 'timed-out' });
        resolve({ kind: 'exited', code: typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      });
    });
}
