/**
 * The search box of the list page: text searched in everything a person reads of every
 * event of every stored conversation at once (the server's search across conversations,
 * `text` filter: messages, commands and their arguments, tool output, errors), newest
 * first. Each hit says where in its event the text was found. Each hit names its conversation and links to that event in it, where the
 * conversation opens scrolled to the event, highlighted. The query lives in the address
 * (`/?search=...`), so a search is a link too.
 */
import type { Event, StoredEventHit } from '../contract/types';
import { readableTexts } from '../search/message-text';
import type { ViewerApi } from './api';
import { element, replaceChildren } from './dom';
import { KIND_PRESENTATION } from './kinds';
import { textRuns } from './rich-text';
import { displayTimestamp } from './time-format';

const PAGE_SIZE = 20;
/** Characters of message text shown around the first match. */
const SNIPPET_CONTEXT = 80;

export interface StoredSearchOptions {
  api: ViewerApi;
  /** The text searched for, from the address; undefined: no search yet. */
  search: string | undefined;
  /** Shows the list with this search (a new entry in the history); empty clears it. */
  submit(search: string): void;
  /** A link that opens the conversation at one event. */
  eventLink(conversationId: string, eventId: string): HTMLAnchorElement;
  onError(error: unknown): void;
}

/** The form and, when the address holds a search, its results; more pages load on request. */
export function storedSearch(options: StoredSearchOptions): HTMLElement {
  const input = element('input', {
    attributes: { type: 'search', id: 'stored-search', name: 'search', placeholder: 'text in any event', autocomplete: 'off', spellcheck: 'false' },
  });
  input.value = options.search ?? '';
  const form = element('form', { className: 'stored-search', attributes: { role: 'search', 'aria-label': 'Search across conversations' } }, [
    element('label', { text: 'Search every conversation', attributes: { for: 'stored-search' } }),
    input,
    element('button', { text: 'Search', attributes: { type: 'submit' } }),
  ]);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    options.submit(input.value.trim());
  });
  const section = element('section', { className: 'stored-search-section' }, [form]);
  if (options.search) section.append(results(options, options.search));
  return section;
}

function results(options: StoredSearchOptions, search: string): HTMLElement {
  const status = element('p', { className: 'search-status', attributes: { 'aria-live': 'polite' }, text: 'Searching…' });
  const list = element('ol', { className: 'search-hits' });
  const more = element('button', { className: 'secondary more-hits', text: 'More results', attributes: { type: 'button', hidden: '' } });
  let nextPageId: string | undefined;
  const load = async () => {
    more.disabled = true;
    try {
      const page = await options.api.searchStoredEvents({
        text: search,
        sort_order: 'TIMESTAMP_DESC',
        limit: PAGE_SIZE,
        ...(nextPageId ? { page_id: nextPageId } : {}),
      });
      list.append(...page.items.map((hit) => hitRow(hit, search, options)));
      nextPageId = page.next_page_id ?? undefined;
      const shown = list.children.length;
      status.textContent =
        shown === 0
          ? `No event in any conversation contains “${search}”.`
          : `${shown}${nextPageId ? '+' : ''} ${shown === 1 ? 'event' : 'events'} contain “${search}”, the newest first.`;
      more.hidden = nextPageId === undefined;
    } catch (error) {
      status.textContent = 'The search failed.';
      options.onError(error);
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener('click', () => void load());
  void load();
  return element('div', { className: 'search-results' }, [element('h2', { text: 'Found in the conversations' }), status, list, more]);
}

function hitRow(hit: StoredEventHit, search: string, options: StoredSearchOptions): HTMLElement {
  const event = hit.event;
  const anchor = options.eventLink(hit.conversation_id, event.id ?? '');
  anchor.className = 'hit-link';
  replaceChildren(anchor, [
    element('span', { className: hit.title ? 'conversation-title' : 'conversation-title untitled', text: hit.title ?? 'Untitled conversation' }),
    element('span', { className: 'hit-meta' }, [
      element('span', { className: 'badge', text: KIND_PRESENTATION[event.kind]?.label ?? event.kind }),
      event.source ? element('span', { text: event.source }) : null,
      event.timestamp ? element('time', { text: displayTimestamp(event.timestamp), attributes: { datetime: event.timestamp } }) : null,
      element('code', { className: 'conversation-id', text: hit.conversation_id }),
    ]),
    ...foundIn(event, search),
  ]);
  return element('li', { attributes: { 'data-conversation-id': hit.conversation_id, 'data-event-id': event.id ?? '' } }, [anchor]);
}

/** Where in the event the text was found (its property path) and the text around it. */
function foundIn(event: Event, search: string): HTMLElement[] {
  const needle = search.toLowerCase();
  const found = readableTexts(event).find((readable) => readable.text.toLowerCase().includes(needle));
  if (!found) return [];
  return [element('span', { className: 'hit-field', text: found.path }), snippet(found.text, search)];
}

/**
 * The text around the first match, the match marked, and code shown as code the way the
 * timeline shows it (no backticks or fences); built from text nodes only.
 */
function snippet(text: string, search: string): HTMLElement {
  // One character per position with whether it is code, whitespace folded, so the match and the window are found in what is shown.
  let flat = '';
  const code: boolean[] = [];
  for (const run of textRuns(text)) {
    const piece = run.text.replace(/\s+/g, ' ');
    const joined = flat.endsWith(' ') && piece.startsWith(' ') ? piece.slice(1) : piece;
    flat += joined;
    for (let i = 0; i < joined.length; i++) code.push(run.code);
  }
  const at = flat.toLowerCase().indexOf(search.toLowerCase());
  const [start, end] =
    at < 0
      ? [0, Math.min(flat.length, SNIPPET_CONTEXT * 2)]
      : [Math.max(0, at - SNIPPET_CONTEXT), Math.min(flat.length, at + search.length + SNIPPET_CONTEXT)];
  const marked = (i: number) => at >= 0 && i >= at && i < at + search.length;
  const parts: (HTMLElement | string)[] = [start > 0 ? '…' : ''];
  for (let i = start; i < end; ) {
    let j = i + 1;
    while (j < end && code[j] === code[i] && marked(j) === marked(i)) j++;
    const piece = flat.slice(i, j);
    const shown: HTMLElement | string = code[i] ? element('code', { text: piece }) : piece;
    parts.push(marked(i) ? element('mark', {}, [shown]) : shown);
    i = j;
  }
  parts.push(end < flat.length ? '…' : '');
  return element('span', { className: 'hit-snippet' }, parts);
}
