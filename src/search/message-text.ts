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

/** Names whose values are identifiers, times, enums or opaque data, not text a person reads. */
const NOT_READ = new Set([
  'id',
  'kind',
  'source',
  'timestamp',
  'tool_call_id',
  'llm_response_id',
  'action_id',
  'forgotten_event_ids',
  'image_urls',
  'encrypted_content',
  'security_risk',
  'rejection_source',
  'role',
  'type',
  'summary_offset',
]);

/** One text of an event a person reads, and where it is: the property path (`observation.content.0.text`). */
export interface ReadableText {
  path: string;
  text: string;
}

/**
 * Every text of an event a person reads, in document order: message text, thoughts and
 * reasoning, action arguments, tool names, observation content, error codes and details,
 * summaries, rejection reasons. It takes every string value of the event except
 * identifiers, times, enums and opaque data (NOT_READ), so a kind or a field added to the
 * contract is searched without a change here. State updates carry the conversation's
 * settings rather than what the agent did, and have none.
 */
export function readableTexts(event: Event): ReadableText[] {
  const texts: ReadableText[] = [];
  walkReadableTexts(event, (text, at) => texts.push({ path: pathOf(at), text }), true);
  return texts;
}

/** Where a value sits: its name in its parent, and the parent's place (undefined at the event itself). */
interface Place {
  name: string;
  parent: Place | undefined;
}

/**
 * Visits every readable text in document order, with its place when `placed`. The walk
 * keeps its own stack, so an event nested deeper than the call stack is read like any
 * other; places are linked to their parents and a path is spelled only for a caller that
 * asks for it. The ingester takes the texts of every event it stores and needs no place:
 * without them the walk allocates nothing for a value but what its stack grows by.
 */
function walkReadableTexts(event: Event, visit: (text: string, at: Place | undefined) => void, placed: boolean): void {
  if (event.kind === 'ConversationStateUpdateEvent') return;
  const values: unknown[] = [event];
  const places: (Place | undefined)[] = [undefined];
  while (values.length > 0) {
    const value = values.pop();
    const at = places.pop();
    if (typeof value === 'string') {
      if (value !== '') visit(value, at);
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) {
        values.push(value[index]);
        places.push(placed ? { name: String(index), parent: at } : undefined);
      }
    } else if (typeof value === 'object' && value !== null) {
      const names = Object.keys(value);
      for (let index = names.length - 1; index >= 0; index--) {
        const name = names[index]!;
        if (NOT_READ.has(name)) continue;
        values.push((value as Record<string, unknown>)[name]);
        places.push(placed ? { name, parent: at } : undefined);
      }
    }
  }
}

/** A place's property path, `observation.content.0.text`. */
function pathOf(at: Place | undefined): string {
  const names: string[] = [];
  for (let place = at; place !== undefined; place = place.parent) names.push(place.name);
  return names.reverse().join('.');
}

/** The text the `text` filter searches: every readable text, lower-cased, one per line. */
export function searchableEventText(event: Event): string {
  const texts: string[] = [];
  walkReadableTexts(event, (text) => texts.push(text), false);
  return texts.join('\n').toLowerCase();
}
