/**
 * The events viewer served at `/`: the list of conversations, or one conversation when
 * the address names it. Navigation inside the page updates the address (history API),
 * so Back, reload and shared links all show the same view.
 */
import { SessionKeyNeeded, createViewerApi, type ViewerApi } from './api';
import { showConversation } from './conversation-view';
import { showConversationList } from './conversation-list';
import { element, replaceChildren } from './dom';
import { showKeyPrompt } from './key-prompt';
import { storeSessionKey, storedSessionKey } from './session-key';
import { readViewState, viewStateSearch, type ViewState } from './view-state';

const main = document.getElementById('main')!;
const notices = document.getElementById('notices')!;
let api: ViewerApi = createViewerApi(storedSessionKey());
let current: { dispose(): void } | undefined;
/** Counts renders, so a slow screen that finishes after the reader moved on is dropped. */
let generation = 0;

function navigate(state: ViewState): void {
  history.pushState(null, '', `/${viewStateSearch(state)}`);
  void render();
}

/** A real link (it opens in a new tab, copies, and survives reload) handled inside the page on a plain click. */
function link(state: ViewState, label?: string): HTMLAnchorElement {
  const anchor = element('a', { attributes: { href: `/${viewStateSearch(state)}` }, ...(label ? { text: label } : {}) });
  anchor.addEventListener('click', (event) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(state);
  });
  return anchor;
}

function showError(error: unknown): void {
  if (error instanceof SessionKeyNeeded) {
    askForKey(error.keyWasSent);
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (notices.textContent === message) return;
  replaceChildren(notices, [element('p', { className: 'notice error', attributes: { role: 'alert' }, text: `⚠ ${message}` })]);
}

function askForKey(keyWasSent: boolean): void {
  current?.dispose();
  current = undefined;
  generation++;
  replaceChildren(notices, []);
  showKeyPrompt(main, keyWasSent, (key) => {
    storeSessionKey(key);
    api = createViewerApi(key);
    void render();
  });
}

async function render(): Promise<void> {
  const mine = ++generation;
  current?.dispose();
  current = undefined;
  replaceChildren(notices, []);
  const state = readViewState(location.search);
  document.title = state.conversation ? 'Conversation · Agent Server' : 'Conversations · Agent Server';
  replaceChildren(main, [element('p', { className: 'loading', text: 'Loading…' })]);
  // A screen's requests fail together (a 401 on the catalog and on the first page): once one
  // error has replaced the screen (the key prompt), the others would redraw the prompt under
  // the reader's typing, and a key typed into the form they replaced is lost.
  const onError = (error: unknown) => {
    if (mine === generation) showError(error);
  };
  try {
    const screen = state.conversation
      ? await showConversation(main, {
          api,
          state: { ...state, conversation: state.conversation },
          navigate,
          backLink: () => link({ filters: {} }, '← All conversations'),
          onError,
        })
      : await showConversationList(main, api, (conversation) => link({ conversation, filters: {} }), {
          search: state.search,
          submit: (search) => navigate(search ? { search, filters: {} } : { filters: {} }),
          eventLink: (conversation, event) => link({ conversation, event, filters: {} }),
          onError,
        });
    if (mine !== generation) screen.dispose();
    else current = screen;
  } catch (error) {
    if (mine !== generation) return;
    if (!(error instanceof SessionKeyNeeded)) replaceChildren(main, [element('h1', { text: state.conversation ? 'Conversation' : 'Conversations' })]);
    showError(error);
  }
}

window.addEventListener('popstate', () => void render());
// Outside the timeline, `j` moves into it: the first key press of a reader who has not clicked yet.
document.addEventListener('keydown', (event) => {
  if (event.key !== 'j' || (event.target as HTMLElement).closest('input, textarea, select, article.event')) return;
  const first = main.querySelector<HTMLElement>('article.event[tabindex="0"]') ?? main.querySelector<HTMLElement>('article.event');
  if (!first) return;
  event.preventDefault();
  first.focus();
});
void render();
