/**
 * What the kernel's watches tell the ingester (ingester.ts) of a directory it follows:
 * whether anything may have changed since a pass began, which conversations were looked at
 * with nothing heard from them since, and which event files were written in place (a write
 * changes no directory time, so only a watch names it). Where watches cannot be had, or
 * fail, it says that anything may have changed, and the ingester's polling finds it.
 */
import { type FSWatcher, watch } from 'node:fs';

/** How long a look whose watches stayed silent spares a request's refresh its own (lookedRecently). */
const LOOK_AGAIN_MS = 250;

interface ConversationWatch {
  watchers: FSWatcher[];
  /** Files written in place, named by the watch of `events/`. */
  rewritten: Set<string>;
}

/** A look at a conversation as it began: lookEnded remembers it when no watch of it spoke meanwhile. */
export interface LookStart {
  readonly hex: string;
  readonly began: number;
  readonly heard: number;
}

export class DirectoryWatch {
  private rootWatcher: FSWatcher | undefined;
  private readonly conversations = new Map<string, ConversationWatch>();
  /** Set by any watch event and cleared when a pass begins; true while watches cannot tell (not started, failed). */
  private changed = true;
  private working = false;
  /** Per conversation, how many times its watches spoke: a look tells whether one did while it ran. */
  private readonly heard = new Map<string, number>();
  /**
   * Per conversation, when its last look began, kept only when that look ended with both its
   * watches running and none of them having spoken since it began (lookedRecently).
   */
  private readonly lookedAt = new Map<string, number>();

  /** Watches the root for conversation directories added, removed, renamed or replaced by a link. */
  watchRoot(realRoot: string): void {
    try {
      this.rootWatcher = watch(realRoot, { persistent: false }, () => {
        this.changed = true;
        // Any conversation may be the one that came or went: each is looked at again.
        this.lookedAt.clear();
      });
      this.rootWatcher.on('error', () => {
        this.working = false;
        this.rootWatcher?.close();
      });
      this.working = true;
    } catch {
      this.working = false;
    }
  }

  /** Watches the conversation's directory (documents, `events/` created) and its `events/` (files added, written, removed). */
  watchConversation(hex: string, directory: string, eventsDirectory: string): void {
    const existing = this.conversations.get(hex);
    if (existing && existing.watchers.length === 2) return;
    this.unwatch(hex);
    const state: ConversationWatch = { watchers: [], rewritten: existing?.rewritten ?? new Set() };
    this.conversations.set(hex, state);
    for (const [target, namesFiles] of [
      [directory, false],
      [eventsDirectory, true],
    ] as const) {
      try {
        const watcher = watch(target, { persistent: false }, (_eventType, name) => {
          this.changed = true;
          this.heard.set(hex, (this.heard.get(hex) ?? 0) + 1);
          this.lookedAt.delete(hex);
          if (namesFiles && typeof name === 'string') state.rewritten.add(name);
        });
        watcher.on('error', () => {
          this.working = false;
          watcher.close();
        });
        state.watchers.push(watcher);
      } catch {
        // No events/ yet (or no more watches to be had): the conversation's directory watch, or the next pass, sees it come.
        if (namesFiles) this.changed = true;
      }
    }
  }

  /** The event files the watch named as written since this was last asked, which it then forgets. */
  takeRewritten(hex: string): Set<string> {
    const noted = this.conversations.get(hex)?.rewritten;
    const rewritten = new Set(noted);
    noted?.clear();
    return rewritten;
  }

  /** A pass begins: what the watches hear from now on is for the next one. */
  passBegins(): void {
    this.changed = false;
  }

  /** Whether something may have changed since the last pass began (always, where no watch can tell). */
  mayHaveChanged(): boolean {
    return this.changed || !this.working;
  }

  lookBegins(hex: string): LookStart {
    return { hex, began: performance.now(), heard: this.heard.get(hex) ?? 0 };
  }

  /** Remembers a look that ended with both of the conversation's watches running and silent since it began. */
  lookEnded({ hex, began, heard }: LookStart): void {
    if (this.conversations.get(hex)?.watchers.length === 2 && (this.heard.get(hex) ?? 0) === heard) this.lookedAt.set(hex, began);
  }

  /**
   * Whether a look at the conversation began lately and no watch of it has spoken since:
   * nothing changed there that the database lacks. A request's look cost as much as its page
   * (a handful of system calls, taking turns with every other request for the conversation);
   * the time bound keeps a file system whose watches stay silent (a network one) looked at
   * often enough that what is appended there is still seen within the second.
   */
  lookedRecently(hex: string): boolean {
    const began = this.lookedAt.get(hex);
    return this.working && began !== undefined && performance.now() - began < LOOK_AGAIN_MS;
  }

  /** Stops watching the conversation (gone, or replaced), and forgets its looks. */
  unwatch(hex: string): void {
    for (const watcher of this.conversations.get(hex)?.watchers ?? []) watcher.close();
    this.conversations.delete(hex);
    this.lookedAt.delete(hex);
  }

  close(): void {
    this.rootWatcher?.close();
    for (const hex of [...this.conversations.keys()]) this.unwatch(hex);
  }
}
