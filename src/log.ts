/**
 * One JSON object per line on a stream (stderr by default), so operators can grep and
 * tests can read what was logged. Callers pass plain data; nothing here formats secrets,
 * so callers must never put one in a field.
 */
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
      write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
  return { info: log('info'), warn: log('warn'), error: log('error') };
}

/** A logger that keeps its lines in memory, for tests and tools that report logs later. */
export function createMemoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { ...createLogger((line) => lines.push(line)), lines };
}
