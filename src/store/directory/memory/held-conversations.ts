/**
 * The conversations the directory store holds in memory, and the memory budget over them.
 * The Map is kept in order of use (an open moves its conversation to the end), so its first
 * entries are the least recently used, and those are dropped first when what is held
 * passes the budget. The decode workers' heaps count against the budget while they run.
 */
import type { Logger } from '../../../log';
import type { ConversationEvents } from '../conversation-events';
import { collectGarbageSoon } from './collect-garbage';

/** A conversation the store holds: its events, its load, and when its directory was last found on disk. */
export interface HeldConversation {
  /** See directoryIdentity: a directory deleted and created again under the same name is loaded afresh. */
  identity: string;
  conversation: ConversationEvents;
  ready: Promise<void>;
  loaded: boolean;
  /** When the directory was last found on disk (performance.now()), and the root watch's generation just before. */
  checkedAt: number;
  checkedGeneration: number;
  /** What the conversation held when last measured (at the end of its load, and when the budget is checked). */
  heldBytes: number;
}

/**
 * The share of the budget dropped after which V8 is asked for a full collection
 * (collect-garbage.ts): dropped conversations' bytes lie outside its heap, and it would
 * otherwise let them pile up.
 */
const COLLECT_AFTER_DROPPING = 0.25;

export class HeldConversations {
  private readonly byHex = new Map<string, HeldConversation>();
  /** Conversations dropped to keep within the budget since the store started. */
  private droppedCount = 0;
  /** Bytes of conversations dropped since the last collection was asked for. */
  private droppedSinceCollection = 0;

  constructor(
    /** Most bytes to hold; undefined: no limit. */
    readonly budgetBytes: number | undefined,
    /** What the decode workers' heaps hold now: memory held on the store's behalf. */
    private readonly workerBytes: () => number,
    private readonly logger: Logger,
  ) {}

  get dropped(): number {
    return this.droppedCount;
  }

  get(hex: string): HeldConversation | undefined {
    return this.byHex.get(hex);
  }

  set(hex: string, held: HeldConversation): void {
    this.byHex.set(hex, held);
  }

  delete(hex: string): void {
    this.byHex.delete(hex);
  }

  values(): IterableIterator<HeldConversation> {
    return this.byHex.values();
  }

  clear(): void {
    this.byHex.clear();
  }

  /** Moves the conversation to the most recently used end, whose order is the order of drops. */
  markUsed(hex: string, held: HeldConversation): void {
    if (this.budgetBytes === undefined || !this.byHex.has(hex)) return;
    this.byHex.delete(hex);
    this.byHex.set(hex, held);
  }

  /** Measures what a conversation holds now: its payloads and its index. */
  measure(held: HeldConversation): void {
    const { payloadBytes, indexBytes } = held.conversation.index.memory();
    held.heldBytes = payloadBytes + indexBytes;
  }

  /**
   * Drops the least recently used loaded conversations until what is held fits the budget.
   * `keep`, the conversation just loaded, is never dropped here, even when it alone is over
   * the budget: it is served whole, and goes first when the next conversation is loaded.
   * Conversations still loading are left alone.
   */
  keepWithinBudget(keep: HeldConversation): void {
    const budget = this.budgetBytes;
    if (budget === undefined) return;
    let total = this.workerBytes();
    for (const held of this.byHex.values()) {
      if (!held.loaded) continue;
      // Appends since the load make a conversation grow: measured again at each check.
      this.measure(held);
      total += held.heldBytes;
    }
    for (const [hex, held] of this.byHex) {
      if (total <= budget) break;
      if (held === keep || !held.loaded) continue;
      total -= held.heldBytes;
      this.droppedSinceCollection += held.heldBytes;
      this.byHex.delete(hex);
      held.conversation.close();
      this.droppedCount += 1;
      this.logger.info('conversation dropped from memory: least recently used, over the memory budget', { conversation: hex, bytes: held.heldBytes });
    }
    if (this.droppedSinceCollection >= budget * COLLECT_AFTER_DROPPING) {
      this.droppedSinceCollection = 0;
      collectGarbageSoon();
    }
  }
}
