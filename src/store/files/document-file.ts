/**
 * Reads a conversation's own documents (`meta.json`, `base_state.json`) as an agent
 * server that cannot be trusted may have left them: only a regular file is read, opened
 * without blocking (a FIFO under that name would hold a thread forever) and without
 * following a link, and a link is read through only when its target, fully resolved, lies
 * inside the conversations directory (contained-path.ts).
 */
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { errorCode } from '../error-code';
import { resolveLinkInsideRoot } from './contained-path';

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The largest document read. A saved state or meta.json holds a conversation's settings, not
 * its events; one of hundreds of megabytes (a hostile writer's) would be read, decoded and
 * parsed whole, on the thread that answers every request, by each request that found it new.
 */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

export type DocumentRead = { kind: 'text'; text: string; stats: Stats } | { kind: 'absent' } | { kind: 'refused'; reason: string };

/** Where a document's path leads, when it is a regular file inside the root; its stats say whether it changed. */
export async function documentStats(realRoot: string, file: string): Promise<Stats | undefined> {
  const target = await containedTarget(realRoot, file);
  if (target.kind !== 'file') return undefined;
  return target.stats;
}

/** The document's text; `absent` when there is none, `refused` (with why) when it is not a regular file inside the root. */
export async function readDocument(realRoot: string, file: string): Promise<DocumentRead> {
  const target = await containedTarget(realRoot, file);
  if (target.kind !== 'file') return target.kind === 'absent' ? target : { kind: 'refused', reason: target.reason };
  try {
    const handle = await open(target.path, OPEN_FLAGS);
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) return { kind: 'refused', reason: 'not a regular file' };
      if (stats.size > MAX_DOCUMENT_BYTES) return { kind: 'refused', reason: `larger than ${MAX_DOCUMENT_BYTES} bytes, not read` };
      return { kind: 'text', text: await handle.readFile('utf8'), stats };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    return { kind: 'refused', reason: `cannot be read (${code ?? String(error)})` };
  }
}

type Target = { kind: 'file'; path: string; stats: Stats } | { kind: 'absent' } | { kind: 'refused'; reason: string };

async function containedTarget(realRoot: string, file: string): Promise<Target> {
  let stats: Stats;
  try {
    stats = await lstat(file);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    return { kind: 'refused', reason: `cannot be read (${code ?? String(error)})` };
  }
  if (stats.isSymbolicLink()) {
    const link = await resolveLinkInsideRoot(realRoot, file).catch(() => ({ ok: false as const, reason: 'missing' as const }));
    if (!link.ok)
      return link.reason === 'missing'
        ? { kind: 'absent' }
        : { kind: 'refused', reason: 'symbolic link to a file outside the conversations directory, not followed' };
    const targetStats = await lstat(link.target).catch(() => undefined);
    if (!targetStats) return { kind: 'absent' };
    return targetStats.isFile() ? { kind: 'file', path: link.target, stats: targetStats } : { kind: 'refused', reason: 'not a regular file' };
  }
  return stats.isFile() ? { kind: 'file', path: file, stats } : { kind: 'refused', reason: 'not a regular file' };
}
