/**
 * Message text as readers expect it from agents: fenced code blocks become code blocks,
 * `inline code` becomes code, everything else keeps its whitespace. The text is
 * untrusted, so it is only ever split and placed in text nodes; markup in it shows as
 * the characters it is.
 */
import { element } from './dom';

const FENCE = /^```([^\n`]*)\n([\s\S]*?)(?:\n```[ \t]*(?:\n|$)|$)/m;

export function richText(text: string): HTMLElement {
  const container = element('div', { className: 'rich-text' });
  let rest = text;
  while (rest.length > 0) {
    const match = FENCE.exec(rest);
    if (!match) {
      container.appendChild(prose(rest));
      break;
    }
    const before = rest.slice(0, match.index);
    if (before.trim() !== '') container.appendChild(prose(before.replace(/\n$/, '')));
    container.appendChild(codeBlock(match[2] ?? '', match[1]?.trim() ?? ''));
    rest = rest.slice(match.index + match[0].length);
  }
  return container;
}

export function codeBlock(code: string, language = ''): HTMLElement {
  const pre = element('pre', { className: 'code-block' }, [element('code', { text: code })]);
  if (language) pre.dataset['language'] = language;
  return pre;
}

function prose(text: string): HTMLElement {
  const paragraph = element('p', { className: 'prose' });
  const parts = text.split(/(`[^`\n]+`)/);
  for (const part of parts) {
    if (part.length > 2 && part.startsWith('`') && part.endsWith('`')) paragraph.appendChild(element('code', { text: part.slice(1, -1) }));
    else if (part) paragraph.appendChild(document.createTextNode(part));
  }
  return paragraph;
}
