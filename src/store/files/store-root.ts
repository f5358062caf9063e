/**
 * The check the CLI runs before serving: is the conversations directory there and
 * readable? Answered as a value, so the CLI decides how to print it and which exit code
 * to use.
 */
import { opendir, stat } from 'node:fs/promises';
import { errorCode } from '../error-code';

export type StoreRootProblem = 'missing' | 'not-a-directory' | 'unreadable';

/** Why the conversations directory cannot be served; the message says what to do. */
export class StoreRootError extends Error {
  constructor(
    readonly problem: StoreRootProblem,
    readonly root: string,
    message: string,
  ) {
    super(message);
    this.name = 'StoreRootError';
  }
}

/**
 * Checks that `root` is a directory this process can list. Returns undefined when it is,
 * and otherwise a StoreRootError whose message names the path and the remedy; it never
 * throws.
 */
export async function checkConversationsRoot(root: string): Promise<StoreRootError | undefined> {
  try {
    const stats = await stat(root);
    if (!stats.isDirectory()) {
      return new StoreRootError(
        'not-a-directory',
        root,
        `The conversations path ${root} is not a directory. Pass the directory that holds one sub-directory per conversation.`,
      );
    }
    const listing = await opendir(root);
    await listing.close();
    return undefined;
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return new StoreRootError(
        'missing',
        root,
        `The conversations directory ${root} does not exist. Create it, or pass the path of an existing one.`,
      );
    }
    return new StoreRootError(
      'unreadable',
      root,
      `The conversations directory ${root} cannot be read (${code ?? String(error)}). Check its permissions for the user running the server.`,
    );
  }
}
