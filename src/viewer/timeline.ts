/**
 * The events of one view, in the view's order: pages are fetched with `next_page_id` as
 * the reader nears the end, so a conversation of any length costs one page to open and
 * only what was scrolled through afterwards. While it is shown, the search is polled for
 * events written since, which are added where the order puts them. Actions and their
 * results are linked both ways by `tool_call_id`.
 */
import type { Event, EventPage, EventSortOrder } from '../contract/types';
import { element } from './dom';
import { eventCard } from './event-card';

export interface TimelineOptions {
  order: EventSortOrder;
  /** One page of the view: the first without `pageId`. */
  fetchPage(pageId: string | undefined): Promise<EventPage>;
  /** Called with each failure; the timeline keeps what it has and tries again on the next scroll or poll. */
  onError(error: unknown): void;
  /** Called after events were added: a page the reader scrolled to, or events written since (`live`). */
  onChange?(cause: 'page' | 'live'): void;
  pollMs: number;
  /** The address of a link to one event of this conversation; each card then carries the link and a "Copy link" button. */
  eventLink?(eventId: string): string;
  /** Opens a push channel that says when events were written (the events socket); polling every `pollMs` is the fallback when it fails. */
  follow?(since: string | undefined, handlers: { onEvent(): void; onFailure(): void }): { close(): void };
}

/** Pages read at most while looking for a linked event, so a link to a missing event does not read a huge conversation whole. */
const MAX_PAGES_TO_REVEAL = 400;

/** Newest first, events written since the last poll are read up to this many pages; a burst beyond that shows after a reload. */
const MAX_CATCH_UP_PAGES = 20;
/** Start the next page this far before the reader reaches the end. */
const PREFETCH_MARGIN = '1200px 0px';

export class Timeline {
  readonly element: HTMLElement;
  private readonly list: HTMLElement;
  private readonly footer: HTMLElement;
  private readonly ids = new Set<string>();
  private readonly actionsByCall = new Map<string, HTMLElement>();
  private readonly resultsByCall = new Map<string, HTMLElement>();
  private nextPageId: string | undefined;
  /** False until the first page came back; true once the last page of the order is on the page. */
  private started = false;
  private reachedEnd = false;
  private loading: Promise<void> | undefined;
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly observer: IntersectionObserver;
  private disposed = false;
  private positions = 0;
  private focused: HTMLElement | undefined;
  /** The newest stored timestamp shown: where the socket's resend starts. */
  private newestTimestamp: string | undefined;
  private live: { close(): void } | undefined;
  private pollRunning = false;
  private pollAgain = false;
  private firstPageError: unknown;

  constructor(private readonly options: TimelineOptions) {
    this.list = element('div', { className: 'timeline', attributes: { role: 'feed', 'aria-busy': 'true', 'aria-label': 'Events' } });
    this.footer = element('p', { className: 'timeline-footer', attributes: { 'aria-live': 'polite' }, text: 'Loading events…' });
    this.element = element('section', { className: 'timeline-section' }, [this.list, this.footer]);
    this.list.addEventListener('keydown', (event) => this.onKey(event));
    this.list.addEventListener('focusin', (event) => {
      const card = (event.target as HTMLElement).closest<HTMLElement>('article.event');
      if (card) this.setFocusable(card);
    });
    this.observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) void this.loadMore();
      },
      { rootMargin: PREFETCH_MARGIN },
    );
  }

  /** Loads the first page, then follows the reader's scrolling, and new events over the socket (or by polling when it fails). */
  async start(): Promise<void> {
    await this.loadMore();
    if (this.disposed || this.failedToStart !== undefined) return;
    this.observer.observe(this.footer);
    if (!this.options.follow) {
      this.schedulePoll();
      return;
    }
    this.live = this.options.follow(this.newestTimestamp, {
      onEvent: () => this.pollNow(),
      onFailure: () => {
        this.live = undefined;
        // Whatever was written while the socket went down is read by the first poll.
        this.pollNow();
        this.schedulePoll();
      },
    });
  }

  dispose(): void {
    this.disposed = true;
    this.observer.disconnect();
    clearTimeout(this.pollTimer);
    this.live?.close();
  }

  /** Reads new events now; events arriving during a read make one more read after it. */
  private pollNow(): void {
    if (this.disposed) return;
    if (this.pollRunning) {
      this.pollAgain = true;
      return;
    }
    this.pollRunning = true;
    void (this.loading ?? Promise.resolve())
      .then(() => this.poll(true))
      .finally(() => {
        this.pollRunning = false;
        if (this.pollAgain) {
          this.pollAgain = false;
          this.pollNow();
        }
      });
  }

  /** Why the first page could not be read, when it could not: the view then has nothing to show or follow. */
  get failedToStart(): unknown {
    return this.firstPageError;
  }

  get renderedCount(): number {
    return this.ids.size;
  }

  /** The card of a shown event. */
  cardOf(eventId: string): HTMLElement | undefined {
    return this.list.querySelector<HTMLElement>(`article.event[data-event-id="${CSS.escape(eventId)}"]`) ?? undefined;
  }

  /**
   * Loads pages until the event is shown, then scrolls it to the middle of the view,
   * highlights and focuses it. False when the view does not hold it.
   */
  async reveal(eventId: string): Promise<boolean> {
    for (let pages = 0; pages < MAX_PAGES_TO_REVEAL && !this.cardOf(eventId) && !(this.started && this.reachedEnd) && !this.disposed; pages++) {
      await this.loadMore();
    }
    const card = this.cardOf(eventId);
    if (!card) return false;
    card.classList.add('highlighted');
    this.setFocusable(card);
    card.focus({ preventScroll: true });
    card.scrollIntoView({ block: 'center' });
    return true;
  }

  /** Fetches the next page unless one is on its way or the end is reached. */
  loadMore(): Promise<void> {
    if (this.disposed || (this.started && this.reachedEnd)) return Promise.resolve();
    this.loading ??= this.fetchNext().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async fetchNext(): Promise<void> {
    try {
      const page = await this.options.fetchPage(this.nextPageId);
      if (this.disposed) return;
      this.started = true;
      this.appendEvents(page.items, 'page');
      this.nextPageId = page.next_page_id ?? undefined;
      this.reachedEnd = this.nextPageId === undefined;
      this.updateFooter();
    } catch (error) {
      if (!this.disposed) {
        if (this.started) this.footer.textContent = 'Could not load more events.';
        else this.firstPageError = error ?? new Error('The first page of events could not be read.');
        this.options.onError(error);
      }
      return;
    } finally {
      this.list.setAttribute('aria-busy', 'false');
    }
    // The footer may still be near the view after a short page. Observing it again reports
    // where it is after the next layout, without forcing one here.
    if (!this.reachedEnd) {
      this.observer.unobserve(this.footer);
      this.observer.observe(this.footer);
    }
  }

  private updateFooter(): void {
    if (!this.reachedEnd) this.footer.textContent = 'Loading more events as you scroll…';
    else if (this.ids.size === 0) this.footer.textContent = 'No events match this view. New events will appear here as they are written.';
    else
      this.footer.textContent =
        this.options.order === 'TIMESTAMP' ? 'End of the conversation so far. New events appear here as they are written.' : 'Oldest event reached.';
  }

  private schedulePoll(): void {
    if (this.disposed) return;
    this.pollTimer = setTimeout(() => {
      void this.poll().finally(() => this.schedulePoll());
    }, this.options.pollMs);
  }

  /**
   * New events: in oldest-first order they follow the last event, so the page that starts
   * at it (the cursor is inclusive) holds them; in newest-first order they come before
   * the first event, so the first page holds them.
   */
  private async poll(pushed = false): Promise<void> {
    // A timed poll skips a hidden tab; a push is read whatever, since no timer will read it later.
    if ((document.hidden && !pushed) || this.loading) return;
    try {
      if (this.options.order === 'TIMESTAMP') {
        if (!this.reachedEnd) return;
        const last = this.lastRenderedId();
        const page = await this.options.fetchPage(last);
        if (this.disposed || this.loading) return;
        this.appendEvents(page.items, 'live');
        if (page.next_page_id) {
          this.nextPageId = page.next_page_id;
          this.reachedEnd = false;
          void this.loadMore();
        }
        this.updateFooter();
      } else {
        const fresh = await this.newestUnseen();
        if (this.disposed || this.loading) return;
        this.prependNewest(fresh);
      }
    } catch (error) {
      if (!this.disposed) this.options.onError(error);
    }
  }

  private lastRenderedId(): string | undefined {
    const cards = this.list.querySelectorAll<HTMLElement>('article.event');
    return cards.length > 0 ? cards[cards.length - 1]!.dataset['eventId'] : undefined;
  }

  private appendEvents(events: readonly Event[], cause: 'page' | 'live'): void {
    const fragment = document.createDocumentFragment();
    const added: HTMLElement[] = [];
    for (const event of events) {
      if (event.id !== undefined && this.ids.has(event.id)) continue;
      const card = this.render(event);
      fragment.appendChild(card);
      added.push(card);
    }
    if (added.length === 0) return;
    this.list.appendChild(fragment);
    this.afterAdding(added, cause);
  }

  /** Newest-first view: the events before the first one shown, read page by page until a shown one is reached. */
  private async newestUnseen(): Promise<Event[]> {
    const fresh: Event[] = [];
    let pageId: string | undefined;
    for (let pages = 0; pages < MAX_CATCH_UP_PAGES; pages++) {
      const page = await this.options.fetchPage(pageId);
      for (const event of page.items) {
        if (event.id !== undefined && this.ids.has(event.id)) return fresh;
        fresh.push(event);
      }
      if (!page.next_page_id) return fresh;
      pageId = page.next_page_id;
    }
    return fresh;
  }

  private prependNewest(fresh: readonly Event[]): void {
    if (fresh.length === 0) return;
    const fragment = document.createDocumentFragment();
    const added = fresh.map((event) => this.render(event));
    for (const card of added) fragment.appendChild(card);
    this.list.insertBefore(fragment, this.list.firstChild);
    this.afterAdding(added, 'live');
    this.updateFooter();
  }

  private render(event: Event): HTMLElement {
    if (event.id !== undefined) this.ids.add(event.id);
    // Stored timestamps are ISO 8601 written by one server, so their text order is their time order.
    if (event.timestamp !== undefined && (this.newestTimestamp === undefined || event.timestamp > this.newestTimestamp))
      this.newestTimestamp = event.timestamp;
    const card = eventCard(event, this.positions++);
    if (this.options.eventLink && event.id !== undefined) card.querySelector('.event-head')?.append(...eventLinks(this.options.eventLink(event.id)));
    if (event.kind === 'ActionEvent') this.actionsByCall.set(event.tool_call_id, card);
    else if (event.kind === 'ObservationEvent' || event.kind === 'AgentErrorEvent' || event.kind === 'UserRejectObservation') {
      this.resultsByCall.set(event.tool_call_id, card);
    }
    return card;
  }

  private afterAdding(cards: readonly HTMLElement[], cause: 'page' | 'live'): void {
    for (const card of cards) this.pair(card);
    if (!this.focused) this.setFocusable(cards[0]!);
    this.options.onChange?.(cause);
  }

  /** Links an action and its result, whichever arrives second. */
  private pair(card: HTMLElement): void {
    const callId =
      card.querySelector<HTMLElement>('[data-pair-for]')?.dataset['pairFor'] ??
      card.querySelector<HTMLElement>('[data-result-of]')?.dataset['resultOf'];
    if (callId === undefined) return;
    const action = this.actionsByCall.get(callId);
    const result = this.resultsByCall.get(callId);
    if (!action || !result) return;
    const pending = action.querySelector<HTMLElement>('[data-pair-for]');
    if (pending?.classList.contains('pending')) {
      const failed =
        result.classList.contains('group-error') || result.classList.contains('group-rejection') || result.querySelector('.error-flag') !== null;
      const where = action.compareDocumentPosition(result) & Node.DOCUMENT_POSITION_FOLLOWING ? 'below' : 'above';
      pending.classList.remove('pending');
      pending.textContent = '';
      pending.appendChild(jumpButton(`${failed ? '⚠ Failed' : '✓ Result'}: ${result.dataset['kind']} ${where}`, result));
      if (failed) pending.classList.add('failed');
    }
    const resultLine = result.querySelector<HTMLElement>('[data-result-of]');
    if (resultLine && !resultLine.querySelector('button')) {
      const label = resultLine.textContent ?? '';
      resultLine.textContent = '';
      resultLine.appendChild(jumpButton(label, action));
    }
    action.classList.add('paired');
    result.classList.add('paired');
    if (action.nextElementSibling === result) {
      action.classList.add('before-result');
      result.classList.add('follows-action');
    }
  }

  private onKey(event: KeyboardEvent): void {
    const target = event.target as HTMLElement;
    if (target.closest('input, textarea, select')) return;
    const onCard = target.matches('article.event');
    const forward = event.key === 'j' || (onCard && event.key === 'ArrowDown');
    const backward = event.key === 'k' || (onCard && event.key === 'ArrowUp');
    if (!forward && !backward) return;
    const current = target.closest<HTMLElement>('article.event') ?? this.focused;
    const next = current ? siblingCard(current, forward) : this.list.querySelector<HTMLElement>('article.event');
    if (!next) return;
    event.preventDefault();
    this.focusCard(next);
  }

  focusCard(card: HTMLElement): void {
    this.setFocusable(card);
    card.focus({ preventScroll: true });
    card.scrollIntoView({ block: 'nearest' });
  }

  /** One card at a time is in the tab order (a roving tabindex), so Tab leaves the timeline in one step. */
  private setFocusable(card: HTMLElement): void {
    if (this.focused === card) return;
    this.focused?.setAttribute('tabindex', '-1');
    card.setAttribute('tabindex', '0');
    this.focused = card;
  }
}

function siblingCard(card: HTMLElement, forward: boolean): HTMLElement | undefined {
  let node = forward ? card.nextElementSibling : card.previousElementSibling;
  while (node && !node.matches('article.event')) node = forward ? node.nextElementSibling : node.previousElementSibling;
  return (node as HTMLElement | null) ?? undefined;
}

function jumpButton(label: string, target: HTMLElement): HTMLButtonElement {
  const button = element('button', { className: 'link-button', text: label, attributes: { type: 'button' } });
  button.addEventListener('click', () => {
    target.setAttribute('tabindex', '0');
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: 'center', behavior: 'smooth' });
  });
  return button;
}

/** A link to the event and a button that copies its full address. */
function eventLinks(href: string): HTMLElement[] {
  const link = element('a', { className: 'event-permalink', text: 'Link', attributes: { href, title: 'A link to this event' } });
  const copy = element('button', {
    className: 'link-button copy-link',
    text: 'Copy link',
    attributes: { type: 'button', title: 'Copy the address of this event' },
  });
  copy.addEventListener('click', () => {
    const address = new URL(href, location.href).href;
    navigator.clipboard.writeText(address).then(
      () => {
        copy.textContent = 'Copied';
        setTimeout(() => {
          copy.textContent = 'Copy link';
        }, 1500);
      },
      () => {
        copy.textContent = 'Copy failed: use the link';
      },
    );
  });
  return [link, copy];
}
