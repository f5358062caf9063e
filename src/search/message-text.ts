import type { Event, EventOfKind } from '../contract';

/**
 * The text a `body` filter searches, lower-cased, as the reference builds it: the text
 * parts of the message content, then of `extended_content`, then the message's
 * `reasoning_content`, joined with single spaces; an image part stands as
 * `[Image: N URLs]`. Only message events have such text (docs/reference-behaviour.md, "Search").
 */
export function searchableText(event: Event): string | undefined {
  if (event.kind !== 'MessageEvent') return undefined;
  return messageParts(event).join(' ').toLowerCase();
}

function messageParts(event: EventOfKind<'MessageEvent'>): string[] {
  const parts: string[] = [];
  for (const part of event.llm_message.content ?? []) parts.push(contentText(part));
  for (const part of event.extended_content ?? []) parts.push(part.text);
  const reasoning = event.llm_message.reasoning_content;
  if (typeof reasoning === 'string') parts.push(reasoning);
  return parts;
}

function contentText(part: Record<string, unknown>): string {
  if (typeof part['text'] === 'string' && (part['type'] === undefined || part['type'] === 'text')) return part['text'];
  const urls = part['image_urls'];
  return `[Image: ${Array.isArray(urls) ? urls.length : 0} URLs]`;
}
