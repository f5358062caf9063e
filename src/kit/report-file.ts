import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes a report when a file is named; returns what went wrong, with the fix, if anything. */
export function writeReportFile(file: string | undefined, render: () => string): string | undefined {
  if (file === undefined) return undefined;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, render());
    return undefined;
  } catch (error) {
    return `cannot write the report: ${(error as Error).message}. Check that the path is writable.`;
  }
}
