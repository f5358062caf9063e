/**
 * One feed per conversation with sockets open on it: it looks for appended events every
 * FEED_POLL_MS and hands each new event, its stored bytes once, to every subscriber.
 * The directory store keeps its conversations current from file notifications, so a look
 * costs a lookup in memory; polling through the store's interface also serves a store
 * that has no notifications of its own.
 */
import type { Logger } from '../log';
import type { EventFeed, FeedEvent } from '../store/event-store';

/** How often a feed looks for appended events: a look is a lookup in memory, and the wait is most of a socket's delivery time (bench/RESULTS.md, "Live delivery"). */
export const FEED_POLL_MS = 50;
/** Events taken per look; a larger burst is taken over the next looks. */
const EVENTS_PER_LOOK = 500;

export interface FeedSubscriber {
  /** Called with each appended event, in append order. */
  deliver(event: FeedEvent): void;
}

export class ConversationFeed {
  readonly subscribers = new Set<FeedSubscriber>();
  private timer: NodeJS.Timeout | undefined;
  private looking = false;

  constructor(
    readonly hex: string,
    /** The highest position delivered: later events are new. */
    private lastPosition: number,
    private readonly feed: EventFeed,
    private readonly logger: Logger,
    private readonly onEmpty: () => void,
    /** Bytes handed to subscribers in one look at most (past one event); the rest waits for the next look. */
    private readonly maxBytesPerLook = Number.POSITIVE_INFINITY,
  ) {}

  /** The position up to which events were stored when the subscriber joined: later ones reach it live. */
  subscribe(subscriber: FeedSubscriber): number {
    this.subscribers.add(subscriber);
    this.timer ??= setInterval(() => void this.look(), FEED_POLL_MS);
    return this.lastPosition;
  }

  unsubscribe(subscriber: FeedSubscriber): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.onEmpty();
  }

  private async look(): Promise<void> {
    if (this.looking) return;
    this.looking = true;
    try {
      const appended = await this.feed.appendedAfter(this.hex, this.lastPosition, EVENTS_PER_LOOK);
      if (!appended) return;
      let bytes = 0;
      for (const event of appended.events) {
        this.lastPosition = Math.max(this.lastPosition, event.position);
        for (const subscriber of this.subscribers) subscriber.deliver(event);
        // A burst goes out over several looks, so a subscriber that reads is not taken for one that stopped.
        bytes += event.json.length;
        if (bytes >= this.maxBytesPerLook) break;
      }
    } catch (error) {
      this.logger.warn('live events could not be read; trying again', { conversation: this.hex, error: (error as Error).message });
    } finally {
      this.looking = false;
    }
  }
}

/** The feeds of the conversations that have sockets open, created on the first and dropped after the last. */
export class ConversationFeeds {
  private readonly feeds = new Map<string, Promise<ConversationFeed | undefined>>();

  constructor(
    private readonly feed: EventFeed,
    private readonly logger: Logger,
    private readonly maxBytesPerLook = Number.POSITIVE_INFINITY,
  ) {}

  /** The conversation's feed; undefined when the store has no such conversation. */
  async feedFor(hex: string): Promise<ConversationFeed | undefined> {
    let pending = this.feeds.get(hex);
    if (!pending) {
      pending = this.open(hex);
      this.feeds.set(hex, pending);
    }
    const feed = await pending;
    if (!feed && this.feeds.get(hex) === pending) this.feeds.delete(hex);
    return feed;
  }

  private async open(hex: string): Promise<ConversationFeed | undefined> {
    const current = await this.feed.appendedAfter(hex, Number.POSITIVE_INFINITY, 0);
    if (!current) return undefined;
    const created: ConversationFeed = new ConversationFeed(
      hex,
      current.lastPosition,
      this.feed,
      this.logger,
      () => {
        if (this.feeds.get(hex) !== undefined) this.feeds.delete(hex);
      },
      this.maxBytesPerLook,
    );
    return created;
  }
}
