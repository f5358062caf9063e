/**
 * Tells the store when an entry of the conversations directory was added, removed or
 * renamed, so `open` can trust what it found there a moment ago instead of checking with
 * an lstat on every request. It only counts notifications (fs.watch, inotify): a
 * conversation checked while the count was n is known unchanged while it is still n.
 * Which name changed is not used, since a conversation may be a link to another entry.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '../../../log';

export class RootWatch {
  private changes = 0;
  private watcher: FSWatcher | undefined;

  /** `enabled: false` (polling mode, for file systems that do not notify) watches nothing. */
  constructor(root: string, logger: Logger, enabled: boolean) {
    if (!enabled) return;
    try {
      this.watcher = watch(root, { persistent: false }, () => this.changes++);
      this.watcher.on('error', (error) => this.stop(logger, error));
    } catch (error) {
      this.stop(logger, error);
    }
  }

  /** False when notifications cannot be relied on: never started, or failed since. */
  get watching(): boolean {
    return this.watcher !== undefined;
  }

  /** Notifications so far. */
  get generation(): number {
    return this.changes;
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  private stop(logger: Logger, error: unknown): void {
    this.close();
    logger.warn('cannot watch the conversations directory; conversations are checked on disk at intervals instead', {
      error: (error as Error)?.message ?? String(error),
    });
  }
}
