/**
 * Asks for the session key when the server answers 401. The key goes to sessionStorage
 * and the field is emptied, so it never stays in the page.
 */
import { element, replaceChildren } from './dom';

export function showKeyPrompt(container: HTMLElement, keyWasRejected: boolean, submit: (key: string) => void): void {
  const input = element('input', { attributes: { id: 'session-key', type: 'password', autocomplete: 'off', required: '', spellcheck: 'false' } });
  const form = element('form', { className: 'key-form' }, [
    element('h1', { text: 'Session key required' }),
    keyWasRejected
      ? element('p', {
          className: 'notice error',
          attributes: { role: 'alert' },
          text: '⚠ The server did not accept that session key. Check it and enter it again.',
        })
      : element('p', { text: 'This server only shows its conversations to clients that send one of its session keys.' }),
    element('label', { text: 'Session key', attributes: { for: 'session-key' } }),
    input,
    element('p', { className: 'hint', text: 'It is kept for this browser tab only and sent to this server as X-Session-API-Key.' }),
    element('button', { text: 'Continue', attributes: { type: 'submit' } }),
  ]);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const key = input.value;
    input.value = '';
    if (key !== '') submit(key);
  });
  replaceChildren(container, [form]);
  input.focus();
}
