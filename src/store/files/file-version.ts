/**
 * What says a file changed without reading it: its inode, modification time and size. The
 * conversation summaries and the catalog re-read a file only when this changes.
 */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { errorCode } from '../error-code';

/** The file's stats, or undefined when it (or a folder on its path) is not there. */
export async function statIfPresent(file: string): Promise<Stats | undefined> {
  try {
    return await stat(file);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new Error(`Cannot read ${file} (${code ?? String(error)})`, { cause: error });
  }
}

export function versionOf(stats: Stats | undefined): string {
  return stats ? `${stats.ino}:${stats.mtimeMs}:${stats.size}` : '-';
}
