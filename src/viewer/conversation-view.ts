/**
 * One conversation: its title, the filters (the search operation's own parameters), the
 * number of matching events and the timeline. Changing a filter changes the page's
 * address, so every view can be shared as a link.
 */
import type { ExportFormat, SearchQuery, StoredConversation } from '../contract/types';
import { SessionKeyNeeded, type ViewerApi, ViewerRequestError } from './api';
import { element, replaceChildren } from './dom';
import { EVENT_KINDS, EVENT_SOURCES, KIND_PRESENTATION, isEventKind, isEventSource } from './kinds';
import { usageText } from './usage-format';
import { displayTimestamp } from './time-format';
import { Timeline } from './timeline';
import { type ViewFilters, type ViewState, viewStateSearch } from './view-state';

/** The first page fills a screen and no more, so it is drawn soonest. */
const FIRST_PAGE_SIZE = 20;
/** Events per later request: small enough to draw in one frame, large enough to stay ahead of fast scrolling. */
const PAGE_SIZE = 50;
/**
 * New events must be on screen within 2 s of being written. The socket says so at once;
 * when it fails, polling twice a second leaves room for a slow request.
 */
const POLL_MS = 500;

export interface ConversationScreenOptions {
  api: ViewerApi;
  state: ViewState & { conversation: string };
  /** Shows another view of the page (a new entry in the history). */
  navigate(state: ViewState): void;
  backLink(): HTMLAnchorElement;
  onError(error: unknown): void;
}

export interface ConversationScreen {
  dispose(): void;
}

export async function showConversation(container: HTMLElement, options: ConversationScreenOptions): Promise<ConversationScreen> {
  const { api, state } = options;
  const conversationId = state.conversation;
  const filters = state.filters;
  const order = filters.sort_order ?? 'TIMESTAMP';
  const query: SearchQuery = { ...filters, limit: PAGE_SIZE };
  const firstQuery: SearchQuery = { ...filters, limit: FIRST_PAGE_SIZE };

  const heading = element('h1', { className: 'conversation-heading', text: 'Conversation' });
  const facts = element('p', { className: 'conversation-facts' }, [element('code', { text: conversationId })]);
  const status = element('p', { className: 'view-status', attributes: { 'aria-live': 'polite' } });
  const timeline = new Timeline({
    order,
    pollMs: POLL_MS,
    fetchPage: (pageId) => api.searchEvents(conversationId, pageId === undefined ? firstQuery : { ...query, page_id: pageId }),
    eventLink: (eventId) => `/${viewStateSearch({ conversation: conversationId, event: eventId, filters: {} })}`,
    follow: (since, handlers) => api.followEvents(conversationId, since, handlers),
    onError: options.onError,
    onChange: (cause) => {
      updateStatus();
      if (cause === 'live') void refreshCount();
    },
  });
  const { sort_order: _order, ...countFilters } = filters;
  let matching: number | undefined;
  let counting = false;
  let countAgain = false;
  const updateStatus = () => {
    const shown = timeline.renderedCount;
    const total = matching ?? shown;
    const noun = total === 1 ? 'event' : 'events';
    const what = isFiltered(filters) ? `${total} matching ${noun}` : `${total} ${noun}`;
    status.textContent = `${what} · ${shown} shown · live: new events appear as they are written`;
  };
  /** The number of matching events, asked again whenever the timeline changes (at most one request at a time). */
  const refreshCount = async () => {
    if (counting) {
      countAgain = true;
      return;
    }
    counting = true;
    try {
      matching = await api.countEvents(conversationId, countFilters);
      updateStatus();
    } catch (error) {
      options.onError(error);
    } finally {
      counting = false;
      if (countAgain) {
        countAgain = false;
        void refreshCount();
      }
    }
  };

  const breadcrumbs = () => element('nav', { className: 'breadcrumbs', attributes: { 'aria-label': 'Breadcrumbs' } }, [options.backLink()]);
  const form = filterForm(filters, (next) => options.navigate({ conversation: conversationId, filters: next }));
  const withheld = element('p', { className: 'withheld-note', attributes: { hidden: '' } });
  replaceChildren(container, [
    breadcrumbs(),
    heading,
    facts,
    withheld,
    downloads(api, conversationId, options.onError),
    form,
    status,
    element('h2', { className: 'visually-hidden', text: 'Events' }),
    timeline.element,
  ]);

  const described = describeConversation(api, conversationId).then(
    (conversation) => {
      if (!conversation) return undefined;
      heading.textContent = conversation.title ?? 'Untitled conversation';
      facts.append(
        ` · ${conversation.event_count} events stored`,
        conversation.last_event_at ? ` · last event ${displayTimestamp(conversation.last_event_at)}` : '',
        conversation.usage ? ` · ${usageText(conversation.usage)}` : '',
      );
      return conversation;
    },
    (error: unknown) => {
      options.onError(error);
      return undefined;
    },
  );

  await timeline.start();
  const failure = timeline.failedToStart;
  if (failure !== undefined) {
    timeline.dispose();
    // The key prompt has taken the page's place; anything else is the error alone and what to do about it.
    if (!(failure instanceof SessionKeyNeeded)) {
      const badFilter = failure instanceof ViewerRequestError && failure.status === 422;
      replaceChildren(container, [
        breadcrumbs(),
        heading,
        facts,
        badFilter ? form : null,
        element('p', { className: 'next-step', text: nextStep(failure) }),
      ]);
    }
    return { dispose: () => undefined };
  }
  updateStatus();
  void refreshCount();
  void described.then((conversation) => (conversation ? explainWithheld(api, conversation, withheld) : undefined)).catch(options.onError);
  if (state.event !== undefined && !(await timeline.reveal(state.event))) {
    options.onError(new Error(`The linked event ${state.event} is not in this view of the conversation.`));
  }
  return { dispose: () => timeline.dispose() };
}

/** What a reader can do about a conversation that could not be shown. */
function nextStep(failure: unknown): string {
  const status = failure instanceof ViewerRequestError ? failure.status : undefined;
  if (status === 404) return 'Go back to all conversations and open one from the list.';
  if (status === 422) return 'Correct the filter named above, or clear the filters.';
  if (status === 0) return 'Start the server again, then reload this page.';
  return "Reload the page to try again; the server's log names the cause.";
}

/**
 * The list counts every stored event; the conversation serves only the events the contract
 * describes. When the two differ, the difference is said, with why and where it is counted,
 * so the two screens never disagree without a word.
 */
async function explainWithheld(api: ViewerApi, conversation: StoredConversation, note: HTMLElement): Promise<void> {
  // Counted after the list was read: events written meanwhile can only raise the served count, never invent a gap.
  const served = await api.countEvents(conversation.id, {});
  const withheld = conversation.event_count - served;
  if (withheld <= 0) return;
  note.textContent =
    `${withheld} of the ${conversation.event_count} stored events ${withheld === 1 ? 'is' : 'are'} not shown: ` +
    `${withheld === 1 ? 'its kind, or a value in it, is' : 'their kinds, or values in them, are'} not in the contract, and the server serves only what the contract describes. ` +
    'Starting it with --serve-stored-events-unchanged keeps properties the contract does not list, not unknown kinds or values; ' +
    "the server's /health counts what it withholds under stored_events (not_served_by_kind, not_served_by_value).";
  note.hidden = false;
}

const EXPORTS: readonly [ExportFormat, string][] = [
  ['jsonl', 'Download JSONL'],
  ['markdown', 'Download Markdown'],
  ['otlp', 'Download OTLP trace'],
  ['atif', 'Download ATIF trajectory'],
];

/**
 * The conversation as a file. Each is a real link to the export; a plain click fetches it
 * through the page's client instead, so the session key is sent when the server needs one,
 * and hands the file to the browser as a download.
 */
function downloads(api: ViewerApi, conversationId: string, onError: (error: unknown) => void): HTMLElement {
  const links = EXPORTS.map(([format, label]) => {
    const href = `/api/stored-conversations/${encodeURIComponent(conversationId)}/export?format=${format}`;
    const anchor = element('a', { className: `download download-${format}`, text: label, attributes: { href, download: '' } });
    anchor.addEventListener('click', (event) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      api.exportConversation(conversationId, format).then(({ blob, fileName }) => {
        const url = URL.createObjectURL(blob);
        const save = element('a', { attributes: { href: url, download: fileName } });
        document.body.append(save);
        save.click();
        save.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
      }, onError);
    });
    return anchor;
  });
  return element('p', { className: 'downloads' }, links);
}

async function describeConversation(api: ViewerApi, conversationId: string): Promise<StoredConversation | undefined> {
  const list = await api.listConversations();
  const wanted = compactId(conversationId);
  return list.items.find((item) => compactId(item.id) === wanted);
}

function compactId(id: string): string {
  return id.replaceAll('-', '').toLowerCase();
}

function isFiltered(filters: ViewFilters): boolean {
  return Boolean(filters.kind || filters.source || filters.body || filters.timestamp__gte || filters.timestamp__lt);
}

/** The filter form. Lists apply when changed; text fields when Enter is pressed or Apply is clicked. */
function filterForm(filters: ViewFilters, apply: (filters: ViewFilters) => void): HTMLFormElement {
  const kind = select('filter-kind', 'kind', [
    ['', 'All kinds'],
    ...EVENT_KINDS.map((name) => [name, `${KIND_PRESENTATION[name].label} (${name})`] as const),
  ]);
  if (filters.kind && !isEventKind(filters.kind)) kind.append(element('option', { text: filters.kind, attributes: { value: filters.kind } }));
  kind.value = filters.kind ?? '';
  const source = select('filter-source', 'source', [['', 'All sources'], ...EVENT_SOURCES.map((name) => [name, name] as const)]);
  if (filters.source && !isEventSource(filters.source))
    source.append(element('option', { text: filters.source, attributes: { value: filters.source } }));
  source.value = filters.source ?? '';
  const order = select('filter-order', 'sort_order', [
    ['TIMESTAMP', 'Oldest first'],
    ['TIMESTAMP_DESC', 'Newest first'],
  ]);
  order.value = filters.sort_order ?? 'TIMESTAMP';
  const body = textInput('filter-body', 'body', filters.body, 'text in messages', 'search');
  // Examples, not values: a bare date in the box reads as a filter already set.
  const from = textInput('filter-from', 'timestamp__gte', filters.timestamp__gte, 'e.g. 2026-06-16T05:40');
  const until = textInput('filter-until', 'timestamp__lt', filters.timestamp__lt, 'e.g. 2026-06-16T06:00');

  const form = element('form', { className: 'filters', attributes: { role: 'search', 'aria-label': 'Filter events' } }, [
    field('Kind', kind),
    field('Source', source),
    field('Message text', body),
    field('From (inclusive)', from),
    field('Until (exclusive)', until),
    field('Order', order),
    element('div', { className: 'filter-actions' }, [
      element('button', { text: 'Apply', attributes: { type: 'submit' } }),
      element('button', { className: 'secondary', text: 'Clear filters', attributes: { type: 'reset' } }),
    ]),
  ]);
  const current = (): ViewFilters => {
    const next: ViewFilters = {};
    if (kind.value) next.kind = kind.value;
    if (source.value) next.source = source.value;
    if (body.value) next.body = body.value;
    if (from.value.trim()) next.timestamp__gte = from.value.trim();
    if (until.value.trim()) next.timestamp__lt = until.value.trim();
    if (order.value === 'TIMESTAMP_DESC') next.sort_order = 'TIMESTAMP_DESC';
    return next;
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    apply(current());
  });
  form.addEventListener('reset', (event) => {
    event.preventDefault();
    apply({});
  });
  for (const list of [kind, source, order]) list.addEventListener('change', () => apply(current()));
  return form;
}

function select(id: string, name: string, options: readonly (readonly [string, string])[]): HTMLSelectElement {
  return element(
    'select',
    { attributes: { id, name } },
    options.map(([value, label]) => element('option', { text: label, attributes: { value } })),
  );
}

function textInput(id: string, name: string, value: string | null | undefined, placeholder: string, type = 'text'): HTMLInputElement {
  const input = element('input', { attributes: { id, name, type, placeholder, autocomplete: 'off', spellcheck: 'false' } });
  input.value = value ?? '';
  return input;
}

function field(label: string, control: HTMLElement): HTMLElement {
  return element('div', { className: 'field' }, [element('label', { text: label, attributes: { for: control.id } }), control]);
}
