/**
 * Reports which names in a directory changed, so a conversation re-reads only those
 * files. fs.watch (inotify on Linux) is the fast path. The listener is told to rescan
 * everything ('all') in three cases: every `pollMs` when watching is off, when fs.watch
 * cannot start (inotify watch limit) or fails later, and every `safetyRescanMs` while it
 * works, to catch what notifications can lose (a queue overflow, a writer on another host
 * of a network file system). A rescan of an unchanged directory costs one stat
 * (conversation-events.ts), so the safety net is cheap.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '../../../log';

/** The changed names, or 'all' when the watcher cannot tell which names changed. */
export type DirectoryChanges = ReadonlySet<string> | 'all';

/** `notify`: fs.watch with a slow safety rescan; `poll`: a rescan every `pollMs`, for file systems that do not notify. */
export type WatchMode = 'notify' | 'poll';

export interface DirectoryWatch {
  readonly mode: WatchMode;
  close(): void;
}

export interface DirectoryWatchOptions {
  logger: Logger;
  mode?: WatchMode;
  /** Changes are gathered this long before the listener runs, so a file written in several steps is read once. */
  gatherMs?: number;
  pollMs?: number;
  safetyRescanMs?: number;
}

const DEFAULTS = { gatherMs: 25, pollMs: 1000, safetyRescanMs: 30_000 };

/** Starts watching `directory`. Timers are unref'd and the watcher is not persistent: a forgotten watch never keeps the process alive. */
export function watchDirectory(directory: string, listener: (changes: DirectoryChanges) => void, options: DirectoryWatchOptions): DirectoryWatch {
  return new DirectoryWatcher(directory, listener, options);
}

class DirectoryWatcher implements DirectoryWatch {
  mode: WatchMode;
  private watcher: FSWatcher | undefined;
  private rescanTimer: NodeJS.Timeout | undefined;
  private gatherTimer: NodeJS.Timeout | undefined;
  private pending = new Set<string>();
  private pendingAll = false;
  private closed = false;
  private readonly timings: { gatherMs: number; pollMs: number; safetyRescanMs: number };

  constructor(
    private readonly directory: string,
    private readonly listener: (changes: DirectoryChanges) => void,
    private readonly options: DirectoryWatchOptions,
  ) {
    this.timings = {
      gatherMs: options.gatherMs ?? DEFAULTS.gatherMs,
      pollMs: options.pollMs ?? DEFAULTS.pollMs,
      safetyRescanMs: options.safetyRescanMs ?? DEFAULTS.safetyRescanMs,
    };
    this.mode = options.mode ?? 'notify';
    if (this.mode === 'poll') {
      this.rescanEvery(this.timings.pollMs);
      return;
    }
    try {
      this.watcher = watch(directory, { persistent: false }, (_event, name) => this.noteChange(name));
      this.watcher.on('error', (error) => this.fallBackToPolling(error, true));
      this.rescanEvery(this.timings.safetyRescanMs);
    } catch (error) {
      this.fallBackToPolling(error, false);
    }
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    clearInterval(this.rescanTimer);
    clearTimeout(this.gatherTimer);
  }

  private noteChange(name: string | Buffer | null): void {
    if (name === null) this.pendingAll = true;
    else this.pending.add(name.toString());
    this.gatherTimer ??= setTimeout(() => this.flush(), this.timings.gatherMs).unref();
  }

  private flush(): void {
    this.gatherTimer = undefined;
    if (this.closed) return;
    const changes: DirectoryChanges = this.pendingAll ? 'all' : this.pending;
    this.pending = new Set();
    this.pendingAll = false;
    this.listener(changes);
  }

  private rescanEvery(ms: number): void {
    clearInterval(this.rescanTimer);
    this.rescanTimer = setInterval(() => this.listener('all'), ms).unref();
  }

  private fallBackToPolling(error: unknown, changesMayBeMissed: boolean): void {
    if (this.closed || this.mode === 'poll') return;
    this.watcher?.close();
    this.watcher = undefined;
    this.mode = 'poll';
    this.options.logger.warn('cannot watch directory, polling it instead', {
      directory: this.directory,
      error: (error as Error)?.message ?? String(error),
      pollMs: this.timings.pollMs,
    });
    this.rescanEvery(this.timings.pollMs);
    if (changesMayBeMissed) this.listener('all');
  }
}
