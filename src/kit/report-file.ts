import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { maskSecretText } from '../secrets';

/**
 * Writes a report when a file is named, with whatever secret it quotes masked (src/secrets: a
 * server under test may answer with one); returns what went wrong, with the fix, if anything.
 */
export function writeReportFile(file: string | undefined, render: () => string): string | undefined {
  if (file === undefined) return undefined;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, maskSecretText(render()));
    return undefined;
  } catch (error) {
    return `cannot write the report: ${(error as Error).message}. Check that the path is writable.`;
  }
}
