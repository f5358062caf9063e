/**
 * The first screen: the store's conversations, the most recent activity first, with a
 * box that narrows them by id or title.
 */
import type { StoredConversation } from '../contract/types';
import type { ViewerApi } from './api';
import { element, replaceChildren } from './dom';
import { type StoredSearchOptions, storedSearch } from './stored-search';
import { displayTimestamp } from './time-format';
import { usageText, usageTotalText } from './usage-format';

export interface ListScreen {
  dispose(): void;
}

export async function showConversationList(
  container: HTMLElement,
  api: ViewerApi,
  link: (conversation: string) => HTMLAnchorElement,
  search: Omit<StoredSearchOptions, 'api'>,
): Promise<ListScreen> {
  const list = await api.listConversations();
  const filterBox = element('input', {
    className: 'list-filter',
    attributes: { type: 'search', id: 'conversation-filter', placeholder: 'id or title', autocomplete: 'off' },
  });
  const summary = element('p', { className: 'list-summary', attributes: { 'aria-live': 'polite' } });
  const items = element('ul', { className: 'conversation-list' });
  const rows = list.items.map((conversation) => ({ conversation, row: conversationRow(conversation, link) }));

  const applyFilter = () => {
    const needle = filterBox.value.trim().toLowerCase();
    const shown = rows.filter(({ conversation }) => matches(conversation, needle));
    replaceChildren(
      items,
      shown.map(({ row }) => row),
    );
    const total = rows.length;
    summary.textContent =
      total === 0
        ? 'This store holds no conversations yet. They appear here when the agent server writes them.'
        : needle === ''
          ? `${total} ${total === 1 ? 'conversation' : 'conversations'}, the most recent activity first.`
          : `${shown.length} of ${total} conversations match “${filterBox.value.trim()}”.`;
  };
  filterBox.addEventListener('input', applyFilter);
  applyFilter();

  replaceChildren(container, [
    element('h1', { text: 'Conversations' }),
    storedSearch({ api, ...search }),
    element('div', { className: 'list-tools', attributes: { role: 'search' } }, [
      element('label', { text: 'Filter by id or title', attributes: { for: 'conversation-filter' } }),
      filterBox,
    ]),
    summary,
    element('p', { className: 'list-usage', text: usageTotalText(list.usage) }),
    items,
  ]);
  return { dispose: () => undefined };
}

function conversationRow(conversation: StoredConversation, link: (conversation: string) => HTMLAnchorElement): HTMLElement {
  const anchor = link(conversation.id);
  anchor.className = 'conversation-link';
  anchor.append(
    element('span', {
      className: conversation.title ? 'conversation-title' : 'conversation-title untitled',
      text: conversation.title ?? 'Untitled conversation',
    }),
    element('span', { className: 'conversation-meta' }, [
      element('code', { className: 'conversation-id', text: conversation.id }),
      element('span', { text: `${conversation.event_count} ${conversation.event_count === 1 ? 'event' : 'events'}` }),
      element('span', { text: conversation.last_event_at ? `last event ${displayTimestamp(conversation.last_event_at)}` : 'no events yet' }),
      element('span', { className: 'conversation-usage', text: usageText(conversation.usage) }),
    ]),
  );
  return element('li', { attributes: { 'data-conversation-id': conversation.id } }, [anchor]);
}

function matches(conversation: StoredConversation, needle: string): boolean {
  if (needle === '') return true;
  const compactNeedle = needle.replaceAll('-', '');
  return conversation.id.replaceAll('-', '').includes(compactNeedle) || (conversation.title ?? '').toLowerCase().includes(needle);
}
