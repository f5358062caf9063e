/**
 * Where a conversation's directory is, checked on every open: one lstat (two more for a
 * symbolic link), so a directory created or deleted while the server runs is seen by the
 * next request, and a directory replaced under the same name is told apart by identity.
 */
import type { Stats } from 'node:fs';
import { lstat, opendir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { resolveLinkInsideRoot } from './contained-path';
import { errorCode } from '../error-code';

const CONVERSATION_DIRECTORY_NAME = /^[0-9a-f]{32}$/;

/** The root's real path, against which links inside it are judged (contained-path.ts). */
export async function realRootOf(root: string): Promise<string> {
  try {
    return await realpath(root);
  } catch (error) {
    throw new Error(`Cannot read the conversations directory ${root} (${errorCode(error) ?? String(error)})`, { cause: error });
  }
}

/** The names in the root that can be conversations (32 lower-case hex digits), as the file system lists them. */
export async function conversationNames(realRoot: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of await opendir(realRoot)) if (CONVERSATION_DIRECTORY_NAME.test(entry.name)) names.push(entry.name);
  } catch (error) {
    throw new Error(`Cannot list the conversations directory ${realRoot} (${errorCode(error) ?? String(error)})`, { cause: error });
  }
  return names;
}

export type ConversationLocation = { found: true; directory: string; identity: string } | { found: false; linkOutsideRoot?: string };

/**
 * The conversation directory `<realRoot>/<hex>`, or `found: false` when there is none.
 * A link is followed only to a directory inside the root (directory/open/contained-path.ts); a name
 * that is not 32 lower-case hex digits is never looked up, so no path can leave the root.
 */
export async function locateConversation(realRoot: string, hex: string): Promise<ConversationLocation> {
  if (!CONVERSATION_DIRECTORY_NAME.test(hex)) return { found: false };
  const entryPath = path.join(realRoot, hex);
  const entry = await statUnlessMissing(entryPath, lstat);
  if (!entry) return { found: false };
  let directory = entryPath;
  if (entry.isSymbolicLink()) {
    const link = await resolveLinkInsideRoot(realRoot, entryPath);
    if (!link.ok) return link.reason === 'outside' ? { found: false, linkOutsideRoot: entryPath } : { found: false };
    directory = link.target;
  }
  const target = directory === entryPath ? entry : await statUnlessMissing(directory, stat);
  if (!target?.isDirectory()) return { found: false };
  return { found: true, directory, identity: directoryIdentity(target) };
}

/**
 * Device, inode and birth time: file systems hand a freed inode number straight to the
 * next directory created, so a directory deleted and created again under the same name
 * shows the same inode; its birth time (statx, where the file system records one) differs.
 */
export function directoryIdentity(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.birthtimeMs}`;
}

async function statUnlessMissing(target: string, statOf: (target: string) => Promise<Stats>): Promise<Stats | undefined> {
  try {
    return await statOf(target);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new Error(`Cannot read the conversation directory ${target} (${code ?? String(error)})`, { cause: error });
  }
}
