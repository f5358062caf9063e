/**
 * The log lines about one conversation's stored events that are not served as stored:
 * one line per reason per conversation, never one per file (a conversation of 100k events
 * recorded by a newer server would otherwise write 100k lines). Reasons are gathered while
 * files are applied and written when the batch of files is done (`flush`); a reason
 * already written for the conversation is not written again, and `/health` keeps the
 * counts.
 */
import type { Logger } from '../../log';
import type { StoredEventMode } from './decide';

interface Pending {
  level: 'info' | 'warn';
  message: string;
  fields: Record<string, unknown>;
  /** The name the count is logged under (`events` or `files`). */
  countName: string;
  count: number;
}

export class StoredEventReport {
  private readonly written = new Set<string>();
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly conversation: string,
    private readonly mode: StoredEventMode,
    private readonly logger: Logger,
  ) {}

  /** A served event had these properties the contract does not list (comma-joined). */
  unlisted(properties: string): void {
    for (const property of properties.split(',')) {
      const key = `unlisted:${property}`;
      if (this.counted(key)) continue;
      const message =
        this.mode === 'contract'
          ? 'events served with properties the contract does not list removed'
          : 'events served with properties the contract does not list (kept: stored events are served unchanged)';
      this.pending.set(key, { level: 'info', message, fields: { property }, countName: 'events', count: 1 });
    }
  }

  /**
   * A file is not served: a newer server wrote a kind or a value the contract does not
   * have, or it is broken (unreadable, not JSON, or its known fields break the contract).
   */
  unserved({ because, reason }: { because: 'broken' | 'unknown-kind' | 'unknown-value'; reason: string }, file: string): void {
    if (because === 'broken') {
      this.add(`broken:${reason}`, { level: 'warn', message: 'event files skipped', fields: { reason, example: file }, countName: 'files' });
    } else if (because === 'unknown-kind') {
      this.add(`kind:${reason}`, {
        level: 'info',
        message: 'events not served: their kind is not in the contract',
        fields: { kind: reason, example: file },
        countName: 'events',
      });
    } else {
      this.add(`value:${reason}`, {
        level: 'info',
        message: 'events not served: they hold a value the contract does not list',
        fields: { value: reason, example: file },
        countName: 'events',
      });
    }
  }

  /** Writes the reasons gathered since the last flush that were not written before for this conversation. */
  flush(): void {
    for (const [key, line] of this.pending) {
      this.written.add(key);
      this.logger[line.level](line.message, { conversation: this.conversation, ...line.fields, [line.countName]: line.count });
    }
    this.pending.clear();
  }

  private add(key: string, line: Omit<Pending, 'count'>): void {
    if (!this.counted(key)) this.pending.set(key, { ...line, count: 1 });
  }

  /** True when `key` was written already or is pending (then counted once more). */
  private counted(key: string): boolean {
    if (this.written.has(key)) return true;
    const pending = this.pending.get(key);
    if (pending) pending.count++;
    return pending !== undefined;
  }
}
