/**
 * Symbolic links under the conversations directory are followed only when their target
 * is inside it too (after resolving every link). A link to elsewhere would let whoever
 * can write one file into the data directory make the server publish any file the process
 * can read, so it is skipped with a warning instead.
 */
import { readlinkSync } from 'node:fs';
import path from 'node:path';
import { realpath } from 'node:fs/promises';
import { errorCode } from '../error-code';

/** True when `candidate` is strictly below `realRoot`; both must be absolute, resolved paths. */
export function isInsideRoot(realRoot: string, candidate: string): boolean {
  const relative = path.relative(realRoot, candidate);
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

export type LinkTarget = { ok: true; target: string } | { ok: false; reason: 'outside' | 'missing' };

/** Where a symbolic link leads, when that is inside the root and exists. */
export async function resolveLinkInsideRoot(realRoot: string, linkPath: string): Promise<LinkTarget> {
  let target: string;
  try {
    target = await realpath(linkPath);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return { ok: false, reason: 'missing' };
    throw error;
  }
  return isInsideRoot(realRoot, target) ? { ok: true, target } : { ok: false, reason: 'outside' };
}

/**
 * The path by which Linux names an open descriptor of this process; opening a path below it
 * starts from the descriptor's directory. By the process id rather than `self`, which is
 * one more link for the kernel to follow on every open through it.
 */
export function descriptorName(fd: number): string {
  return `/proc/${process.pid}/fd/${fd}`;
}

/** Where an open descriptor leads (descriptorName); undefined where the system does not name descriptors. */
export function descriptorTarget(fd: number): string | undefined {
  try {
    return readlinkSync(descriptorName(fd));
  } catch {
    return undefined;
  }
}

/**
 * Whether the file an open descriptor refers to is inside the root, as Linux names it
 * (descriptorTarget): a path whose directories were checked before the open may lead
 * elsewhere by the time of it, if one of them was swapped for a link meanwhile. True where
 * the system does not name descriptors.
 */
export function descriptorInsideRoot(realRoot: string, fd: number): boolean {
  const opened = descriptorTarget(fd);
  return opened === undefined || isInsideRoot(realRoot, opened);
}
