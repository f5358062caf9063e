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
  for (const run of inlineRuns(text)) paragraph.appendChild(run.code ? element('code', { text: run.text }) : document.createTextNode(run.text));
  return paragraph;
}

/** A stretch of message text, and whether the timeline shows it as code. */
export interface TextRun {
  readonly text: string;
  readonly code: boolean;
}

/** `inline code` as a code run without its backticks, the rest as text: the same rule the timeline's prose follows. */
function inlineRuns(text: string): TextRun[] {
  return text
    .split(/(`[^`\n]+`)/)
    .filter((part) => part !== '')
    .map((part) =>
      part.length > 2 && part.startsWith('`') && part.endsWith('`') ? { text: part.slice(1, -1), code: true } : { text: part, code: false },
    );
}

/** Message text as runs of code and text, fenced blocks and inline code alike, without the markers the timeline does not show. */
export function textRuns(text: string): TextRun[] {
  const runs: TextRun[] = [];
  let rest = text;
  while (rest.length > 0) {
    const match = FENCE.exec(rest);
    if (!match) {
      runs.push(...inlineRuns(rest));
      break;
    }
    runs.push(...inlineRuns(rest.slice(0, match.index)));
    if (match[2]) runs.push({ text: match[2], code: true });
    rest = rest.slice(match.index + match[0].length);
  }
  return runs;
}
