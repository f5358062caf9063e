/**
 * One JSON object per line on a stream (stderr by default), so operators can grep and
 * tests can read what was logged. Callers pass plain data and should never put a secret in
 * a field; every line still passes through the secret policy (src/secrets), and is written
 * without recursion, so no field of any depth stops it.
 */
import { jsonText } from './json/json-text';
import { maskSecrets } from './secrets';

export type LogLevel = 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export function createLogger(write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const log =
    (level: LogLevel) =>
    (message: string, fields: LogFields = {}) =>
      write(`${jsonText(maskSecrets({ time: new Date().toISOString(), level, message, ...fields }))}\n`);
  return { info: log('info'), warn: log('warn'), error: log('error') };
}

/** A logger that keeps its lines in memory, for tests and tools that report logs later. */
export function createMemoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { ...createLogger((line) => lines.push(line)), lines };
}
