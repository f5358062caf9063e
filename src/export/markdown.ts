/**
 * A conversation as a Markdown document a person reads: the task first, messages as text,
 * each action with its tool, summary and arguments, each result fenced and linked to its
 * action, errors marked, long outputs folded in `<details>`. Written one event at a time,
 * so a conversation of any length streams. Encrypted reasoning is never written, and
 * text shaped like a credential is masked (src/secrets) on top of what the secret policy
 * masked in the event before it came here.
 */
import type { Event, EventOfKind, Message, ReasoningItemModel, TextContent } from '../contract';
import { DEFAULT_SOURCE } from '../search/kinds';
import { INDENTED, jsonText } from '../json/json-text';
import { maskCredentialText, maskSecrets } from '../secrets';
import type { LargeEvent } from '../store';
import { observationText, withoutKind } from './observation-text';

/** Outputs longer than this many lines are folded. */
const OPEN_OUTPUT_LINES = 24;

export interface MarkdownHeading {
  conversationId: string;
  title: string | null;
}

/** The document's opening: its title and what it is. */
export function markdownHeading({ conversationId, title }: MarkdownHeading): string {
  const name = title?.trim() ? oneLine(title) : `Conversation ${conversationId}`;
  return `# ${escapeInline(name)}\n\nConversation \`${conversationId}\`, exported as Markdown. Each event has an anchor; a result links to its action.\n\n`;
}

/** Whether the event is a message from the user: the first one is the conversation's task. */
export function isUserMessage(event: Event): event is EventOfKind<'MessageEvent'> {
  return event.kind === 'MessageEvent' && event.source === 'user';
}

/** The task: the user's first message, written under its own heading before the events. */
export function taskSection(event: EventOfKind<'MessageEvent'>): string {
  return `## Task\n\n<a id="${anchorOf(event.id)}"></a>*${event.source}${timeOf(event)}*\n\n${messageBody(event)}\n## Events\n\n`;
}

/** One event's section. */
export function eventSection(event: Event): string {
  const source = event.source ?? DEFAULT_SOURCE[event.kind] ?? 'unknown';
  const { heading, body } = sectionOf(event);
  return `### <a id="${anchorOf(event.id)}"></a>${heading}\n\n*${source}${timeOf(event)}*\n\n${body}${body.endsWith('\n') ? '' : '\n'}\n`;
}

/** The section of an event too large to render: its kind and id as the store lists them, its size, and where it can be had whole. */
export function largeEventSection({ id, kind, size }: Pick<LargeEvent, 'id' | 'kind' | 'size'>): string {
  const megabytes = (size / (1024 * 1024)).toFixed(1);
  return `### <a id="${anchorOf(id)}"></a>${escapeInline(kind)} (${megabytes} MB, not shown)\n\nThis event is too large to show here. The JSON lines export and \`GET .../events/${escapeInline(id)}\` have it whole.\n\n`;
}

function timeOf(event: Event): string {
  return event.timestamp ? ` · ${event.timestamp}` : '';
}

function sectionOf(event: Event): { heading: string; body: string } {
  switch (event.kind) {
    case 'MessageEvent':
      return { heading: `Message from the ${event.source}`, body: messageBody(event) };
    case 'ActionEvent':
      return actionSection(event);
    case 'ObservationEvent':
      return observationSection(event);
    case 'UserRejectObservation':
      return {
        heading: `⛔ Rejected: \`${event.tool_name}\``,
        body: `${resultLink(event)}\n\n**Rejected by the ${event.rejection_source ?? 'user'}:** ${text(event.rejection_reason ?? 'User rejected the action')}\n`,
      };
    case 'AgentErrorEvent':
      return { heading: `⚠ Error in \`${event.tool_name}\``, body: `**Error**\n\n${fenced(event.error)}` };
    case 'ConversationErrorEvent':
      return { heading: `⚠ Conversation error: ${escapeInline(event.code)}`, body: `**Error**\n\n${fenced(event.detail)}` };
    case 'SystemPromptEvent':
      return {
        heading: 'System prompt',
        body: `${event.tools.length} tools: ${event.tools.map((tool) => `\`${toolName(tool)}\``).join(', ')}\n\n${details('System prompt', fenced(event.system_prompt.text))}`,
      };
    case 'Condensation':
      return {
        heading: `Condensation: ${(event.forgotten_event_ids ?? []).length} events forgotten`,
        body: event.summary ? text(event.summary) : '*No summary.*',
      };
    case 'CondensationRequest':
      return { heading: 'The agent asked to condense its context', body: '' };
    case 'CondensationSummaryEvent':
      return { heading: 'Summary of condensed events', body: text(event.summary) };
    case 'ConversationStateUpdateEvent':
      return { heading: `State: ${escapeInline(event.key ?? 'state')}`, body: fenced(readableJson(event.value ?? null), 'json') };
    case 'LLMCompletionLogEvent':
      return {
        heading: `Completion log (${escapeInline(event.model_name ?? 'unknown model')})`,
        body: details(event.filename, fenced(prettyJsonText(event.log_data), 'json')),
      };
    case 'TokenEvent':
      return { heading: 'Token ids', body: `${event.prompt_token_ids.length} prompt tokens, ${event.response_token_ids.length} response tokens.` };
    case 'PauseEvent':
      return { heading: 'The conversation was paused', body: '' };
    default:
      return unknownKind(event);
  }
}

function unknownKind(event: never): { heading: string; body: string } {
  return { heading: 'Event', body: fenced(readableJson(event), 'json') };
}

function messageBody(event: EventOfKind<'MessageEvent'>): string {
  const message = event.llm_message;
  const parts: string[] = [];
  for (const part of message.content ?? [])
    parts.push(typeof (part as TextContent).text === 'string' ? text((part as TextContent).text) : '*[image]*');
  if (event.extended_content && event.extended_content.length > 0)
    parts.push(details('Extended content', event.extended_content.map((part) => text(part.text)).join('\n\n')));
  parts.push(...reasoning(message.reasoning_content, message.thinking_blocks, message.responses_reasoning_item));
  for (const call of message.tool_calls ?? []) parts.push(`**Tool call** \`${call.name}\`\n\n${fenced(prettyJsonText(call.arguments), 'json')}`);
  return `${parts.join('\n\n')}\n`;
}

function actionSection(event: EventOfKind<'ActionEvent'>): { heading: string; body: string } {
  const thought = event.thought
    .map((part) => part.text)
    .join('\n')
    .trim();
  const parts: string[] = [];
  if (thought) parts.push(text(thought));
  parts.push(...reasoning(event.reasoning_content, event.thinking_blocks, event.responses_reasoning_item));
  parts.push(`**Tool:** \`${event.tool_name}\``);
  if (event.summary) parts.push(`**Summary:** ${text(oneLine(event.summary))}`);
  parts.push(`**Arguments**\n\n${fenced(prettyJsonText(event.tool_call.arguments), 'json')}`);
  if (event.security_risk && event.security_risk !== 'UNKNOWN') parts.push(`**Security risk:** ${event.security_risk}`);
  const summary = event.summary ? ` · ${escapeInline(oneLine(event.summary))}` : '';
  return { heading: `▶ Action: \`${event.tool_name}\`${summary}`, body: `${parts.join('\n\n')}\n` };
}

function observationSection(event: EventOfKind<'ObservationEvent'>): { heading: string; body: string } {
  const observation = event.observation as Record<string, unknown> & { kind: string };
  const isError = observation['is_error'] === true;
  const parts = [resultLink(event)];
  const facts: string[] = [];
  if (typeof observation['command'] === 'string') facts.push(`command \`${oneLine(maskCredentialText(observation['command']))}\``);
  if (typeof observation['exit_code'] === 'number') facts.push(`exit code ${observation['exit_code']}`);
  if (observation['timeout'] === true) facts.push('timed out');
  if (facts.length > 0) parts.push(facts.join(' · '));
  if (isError) parts.push('**⚠ The tool reported an error.**');
  const output = observationText(observation);
  const block = output === undefined ? fenced(readableJson(withoutKind(observation)), 'json') : fenced(output);
  const lines = (output ?? block).split('\n').length;
  parts.push(lines > OPEN_OUTPUT_LINES ? details(`Output (${lines} lines)`, block) : block);
  return { heading: `◀ Result of \`${event.tool_name}\`${isError ? ' · failed' : ''}`, body: `${parts.join('\n\n')}\n` };
}

function resultLink(event: { tool_call_id: string; action_id?: string }): string {
  return event.action_id
    ? `↳ Result of [the action](#${anchorOf(event.action_id)}) (tool call \`${event.tool_call_id}\`)`
    : `↳ Result of tool call \`${event.tool_call_id}\``;
}

/** The model's reasoning, folded; `encrypted_content` is opaque provider data and never written. */
function reasoning(content: string | null | undefined, blocks: Message['thinking_blocks'], item: ReasoningItemModel | null | undefined): string[] {
  const parts: string[] = [];
  if (content) parts.push(content);
  for (const block of blocks ?? []) parts.push('thinking' in block ? block.thinking : '[redacted thinking]');
  for (const line of [...(item?.summary ?? []), ...(item?.content ?? [])]) parts.push(line);
  return parts.length === 0 ? [] : [details('Reasoning', text(parts.join('\n\n')))];
}

/** Prose from the conversation, as Markdown, secrets redacted; raw HTML is shown as text, not run by a renderer. */
function text(value: string): string {
  return maskCredentialText(value).replace(/</g, '&lt;');
}

/** A fenced block longer than any run of backticks inside it, so no output can close it early. */
export function fenced(value: string, language = 'text'): string {
  // A loop rather than Math.max(...runs): an output with a great many runs would overflow the stack as arguments.
  let longest = 2;
  for (const run of value.matchAll(/`+/g)) if (run[0].length > longest) longest = run[0].length;
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${maskCredentialText(value)}\n${fence}\n`;
}

function details(summary: string, body: string): string {
  return `<details><summary>${escapeHtml(summary)}</summary>\n\n${body}\n</details>\n`;
}

/** JSON text pretty-printed, `encrypted_content` left out and secrets masked; shown as it is when it does not parse. */
function prettyJsonText(value: string): string {
  try {
    return readableJson(JSON.parse(value));
  } catch {
    return value;
  }
}

/** A value as indented JSON for a person: opaque provider data left out, secret fields masked, at any depth. */
function readableJson(value: unknown): string {
  return jsonText(maskSecrets(value, undefined, { omit: OPAQUE_MEMBERS }), INDENTED);
}

/** Encrypted reasoning: provider data no person can read. */
const OPAQUE_MEMBERS: ReadonlySet<string> = new Set(['encrypted_content']);

/** An HTML id from an event id: characters outside [A-Za-z0-9_-] are written as their code. */
export function anchorOf(eventId: string | undefined): string {
  return `event-${(eventId ?? 'unknown').replace(/[^A-Za-z0-9_-]/g, (character) => `_${character.codePointAt(0)!.toString(16)}`)}`;
}

function toolName(tool: unknown): string {
  const record = tool as { name?: unknown; title?: unknown; kind?: unknown };
  return escapeInline(String(record.name ?? record.title ?? record.kind ?? 'tool'));
}

function oneLine(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

function escapeInline(value: string): string {
  return maskCredentialText(value)
    .replace(/[`*_[\]#\\]/g, (character) => `\\${character}`)
    .replace(/</g, '&lt;');
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
