/**
 * One event as the timeline shows it: an `<article>` carrying `data-event-id` and
 * `data-kind`, a header with the kind, the source and the time, and a body written for
 * its kind. Every string comes from stored events and is placed as text. Bulky parts
 * (system prompt, token ids, completion logs, long outputs) are folded and built only
 * when opened, so a page of events renders quickly.
 */
import type { Event, EventOfKind, Message, ReasoningItemModel, TextContent } from '../contract/types';
import { DEFAULT_SOURCE } from '../search/kinds';
import { observationText, withoutKind } from '../export/observation-text';
import { element, type Child } from './dom';
import { KIND_PRESENTATION } from './kinds';
import { codeBlock, richText } from './rich-text';
import { displayTimeOfDay, displayTimestamp } from './time-format';

/** Longer outputs start folded, so one long command output does not hide the timeline. */
const OPEN_OUTPUT_LINES = 24;

const GROUP_ICON: Record<string, string> = {
  message: '✉',
  action: '▶',
  observation: '◀',
  error: '⚠',
  rejection: '⛔',
  condensation: '⇣',
  system: '⚙',
  state: '●',
};

export function eventCard(event: Event, position: number): HTMLElement {
  const presentation = KIND_PRESENTATION[event.kind];
  const source = event.source ?? DEFAULT_SOURCE[event.kind] ?? 'unknown';
  const headingId = `event-${position}`;
  const card = element('article', {
    className: `event group-${presentation.group} source-${source}`,
    attributes: { 'data-event-id': event.id ?? '', 'data-kind': event.kind, tabindex: '-1', 'aria-labelledby': headingId },
  });
  const { title, body } = contentOf(event);
  card.append(
    element('header', { className: 'event-head' }, [
      element('h3', { className: 'event-title', attributes: { id: headingId } }, [
        element('span', {
          className: `badge kind-badge kind-${presentation.group}`,
          text: `${GROUP_ICON[presentation.group] ?? ''} ${presentation.label}`,
        }),
        title ? element('span', { className: 'event-summary', text: title }) : null,
      ]),
      element('span', { className: `badge source-badge source-${source}`, text: source }),
      event.timestamp
        ? element('time', {
            className: 'event-time',
            text: displayTimeOfDay(event.timestamp),
            attributes: { datetime: event.timestamp, title: displayTimestamp(event.timestamp) },
          })
        : null,
    ]),
    element('div', { className: 'event-body' }, body),
  );
  return card;
}

interface Content {
  title?: string;
  body: Child[];
}

function contentOf(event: Event): Content {
  switch (event.kind) {
    case 'MessageEvent':
      return messageContent(event);
    case 'ActionEvent':
      return actionContent(event);
    case 'ObservationEvent':
      return observationContent(event);
    case 'UserRejectObservation':
      return {
        title: `${event.tool_name} was rejected by the ${event.rejection_source ?? 'user'}`,
        body: [resultOf(event), labelled('Reason', event.rejection_reason ?? 'User rejected the action')],
      };
    case 'AgentErrorEvent':
      return { title: `Error in ${event.tool_name}`, body: [resultOf(event), element('pre', { className: 'error-text', text: event.error })] };
    case 'ConversationErrorEvent':
      return { title: event.code, body: [element('pre', { className: 'error-text', text: event.detail })] };
    case 'SystemPromptEvent':
      return {
        title: `${event.tools.length} tools`,
        body: [
          folded('System prompt', () => [codeBlock(event.system_prompt.text)]),
          folded(`Tools (${event.tools.length})`, () => [
            element(
              'ul',
              { className: 'tool-list' },
              event.tools.map((tool) => element('li', { text: toolName(tool) })),
            ),
          ]),
          event.dynamic_context ? folded('Dynamic context', () => [codeBlock(event.dynamic_context?.text ?? '')]) : null,
        ],
      };
    case 'Condensation':
      return condensationContent(event);
    case 'CondensationRequest':
      return { title: 'The agent asked to condense its context', body: [] };
    case 'CondensationSummaryEvent':
      return { title: 'Summary of condensed events', body: [richText(event.summary)] };
    case 'ConversationStateUpdateEvent':
      return stateUpdateContent(event);
    case 'LLMCompletionLogEvent':
      return {
        title: event.model_name ?? 'unknown model',
        body: [folded(`Completion log ${event.filename}`, () => [codeBlock(prettyJsonText(event.log_data))])],
      };
    case 'TokenEvent':
      return {
        title: `${event.prompt_token_ids.length} prompt tokens, ${event.response_token_ids.length} response tokens`,
        body: [
          folded('Token ids', () => [labelled('Prompt', event.prompt_token_ids.join(' ')), labelled('Response', event.response_token_ids.join(' '))]),
        ],
      };
    case 'PauseEvent':
      return { title: 'The conversation was paused', body: [] };
    default:
      return unknownKind(event);
  }
}

function unknownKind(event: never): Content {
  return { body: [jsonBlock(event, 'Event')] };
}

function messageContent(event: EventOfKind<'MessageEvent'>): Content {
  const message = event.llm_message;
  return {
    title: event.sender ? `from ${event.sender}` : undefined,
    body: [
      ...messageParts(message.content ?? []),
      event.extended_content && event.extended_content.length > 0 ? folded('Extended content', () => textBlocks(event.extended_content ?? [])) : null,
      ...reasoning(message.reasoning_content, message.thinking_blocks, message.responses_reasoning_item),
      message.tool_calls && message.tool_calls.length > 0
        ? labelledBlock(
            'Tool calls',
            message.tool_calls.map((call) => element('div', {}, [element('code', { text: call.name }), argumentsBlock(call.arguments)])),
          )
        : null,
      event.activated_skills && event.activated_skills.length > 0 ? labelled('Skills', event.activated_skills.join(', ')) : null,
      event.critic_result
        ? labelled('Critic', `${event.critic_result.score.toFixed(2)}${event.critic_result.message ? ` · ${event.critic_result.message}` : ''}`)
        : null,
    ],
  };
}

function actionContent(event: EventOfKind<'ActionEvent'>): Content {
  const thought = event.thought
    .map((part) => part.text)
    .join('\n')
    .trim();
  return {
    title: actionTitle(event.tool_name, event.summary, event.tool_call.arguments),
    body: [
      thought ? richText(thought) : null,
      ...reasoning(event.reasoning_content, event.thinking_blocks, event.responses_reasoning_item),
      argumentsBlock(event.tool_call.arguments),
      event.security_risk && event.security_risk !== 'UNKNOWN' ? labelled('Security risk', event.security_risk) : null,
      element('p', { className: 'pair-link pending', attributes: { 'data-pair-for': event.tool_call_id }, text: 'Waiting for the result…' }),
    ],
  };
}

function observationContent(event: EventOfKind<'ObservationEvent'>): Content {
  const observation = event.observation as Record<string, unknown> & { kind: string };
  const isError = observation['is_error'] === true;
  const text = observationText(observation);
  const facts: string[] = [];
  if (typeof observation['command'] === 'string')
    facts.push(observation.kind === 'TerminalObservation' ? `$ ${observation['command']}` : `command: ${observation['command']}`);
  if (typeof observation['exit_code'] === 'number') facts.push(`exit code ${observation['exit_code']}`);
  if (observation['timeout'] === true) facts.push('timed out');
  const lines = text === undefined ? 0 : text.split('\n').length;
  return {
    title: `${event.tool_name}${isError ? ' · failed' : ''}`,
    body: [
      resultOf(event),
      facts.length > 0 ? element('p', { className: 'facts', text: facts.join(' · ') }) : null,
      isError ? element('p', { className: 'error-flag', text: '⚠ The tool reported an error' }) : null,
      text !== undefined
        ? folded(`Output (${lines} ${lines === 1 ? 'line' : 'lines'})`, () => [codeBlock(text)], lines <= OPEN_OUTPUT_LINES)
        : jsonBlock(withoutKind(observation), 'Observation'),
    ],
  };
}

function stateUpdateContent(event: EventOfKind<'ConversationStateUpdateEvent'>): Content {
  const key = event.key ?? 'state';
  const value: unknown = event.value;
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return { title: `${key} → ${String(value)}`, body: [] };
  const text = prettyJson(value);
  return { title: key, body: [folded(`Value (${text.split('\n').length} lines)`, () => [codeBlock(text, 'json')])] };
}

function condensationContent(event: EventOfKind<'Condensation'>): Content {
  const forgotten = event.forgotten_event_ids ?? [];
  return {
    title: `${forgotten.length} ${forgotten.length === 1 ? 'event' : 'events'} forgotten`,
    body: [
      event.summary ? labelledBlock('Summary', [richText(event.summary)]) : element('p', { className: 'muted', text: 'No summary.' }),
      forgotten.length > 0 ? folded('Forgotten event ids', () => [element('pre', { className: 'id-list', text: forgotten.join('\n') })]) : null,
    ],
  };
}

/** Characters of a heading's summary; the whole text is in the card's body. */
const TITLE_LENGTH = 120;

/**
 * The heading of an action: its tool and what it does, in one line. The reference writes
 * `summary` as `<tool>: <the arguments' JSON>` when the model gave none, which would repeat
 * the arguments shown below; the heading then names the argument that says what the call does.
 */
function actionTitle(toolName: string, summary: string | null | undefined, argumentsJson: string): string {
  const written = summary?.trim();
  const echoesArguments = written?.startsWith(`${toolName}: `) === true && /^[[{]/.test(written.slice(toolName.length + 2));
  const what = written && !echoesArguments ? written : argumentSummary(toolName, argumentsJson);
  return what ? `${toolName} · ${oneLine(what)}` : toolName;
}

/** Tools whose `command` argument is a shell command line. */
const SHELL_TOOLS = new Set(['terminal', 'bash', 'execute_bash']);

/** What a tool call does, from its arguments: the command and path, a task count, the shell command, or the first text argument. */
function argumentSummary(toolName: string, argumentsJson: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const values = parsed as Record<string, unknown>;
  const text = (name: string) => (typeof values[name] === 'string' && values[name] !== '' ? (values[name] as string) : undefined);
  const command = text('command');
  const path = text('path');
  if (path) return command ? `${command} ${path}` : path;
  if (Array.isArray(values['task_list']))
    return `${command ?? 'tasks'}: ${values['task_list'].length} ${values['task_list'].length === 1 ? 'task' : 'tasks'}`;
  if (command) return SHELL_TOOLS.has(toolName) ? `$ ${command}` : command;
  for (const value of Object.values(values)) if (typeof value === 'string' && value.trim() !== '') return value;
  return undefined;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > TITLE_LENGTH ? `${flat.slice(0, TITLE_LENGTH - 1)}…` : flat;
}

/** The line that names the action a result answers; the timeline turns it into a link once the action is on the page. */
function resultOf(event: { tool_name: string; tool_call_id: string; action_id: string } | { tool_name: string; tool_call_id: string }): HTMLElement {
  const actionId = 'action_id' in event ? event.action_id : '';
  return element('p', {
    className: 'result-of',
    attributes: { 'data-result-of': event.tool_call_id, 'data-action-id': actionId },
    text: `↳ Result of the ${event.tool_name} action · ${shortId(event.tool_call_id)}`,
  });
}

function messageParts(parts: readonly (TextContent | Record<string, unknown>)[]): Child[] {
  return parts.map((part) => {
    if (typeof part['text'] === 'string') return richText(part['text']);
    return element('p', { className: 'muted', text: '[image]' });
  });
}

function textBlocks(parts: readonly TextContent[]): Child[] {
  return parts.map((part) => richText(part.text));
}

/** The model's reasoning, folded; `encrypted_content` is opaque provider data and never shown. */
function reasoning(content: string | null | undefined, blocks: Message['thinking_blocks'], item: ReasoningItemModel | null | undefined): Child[] {
  const parts: string[] = [];
  if (content) parts.push(content);
  for (const block of blocks ?? []) parts.push('thinking' in block ? block.thinking : '[redacted thinking]');
  for (const line of [...(item?.summary ?? []), ...(item?.content ?? [])]) parts.push(line);
  if (parts.length === 0) return [];
  return [folded('Reasoning', () => [richText(parts.join('\n\n'))])];
}

function argumentsBlock(argumentsJson: string): HTMLElement {
  return labelledBlock('Arguments', [codeBlock(prettyJsonText(argumentsJson), 'json')]);
}

function jsonBlock(value: unknown, label: string): HTMLElement {
  const text = prettyJson(value);
  const lines = text.split('\n').length;
  return folded(`${label} (${lines} ${lines === 1 ? 'line' : 'lines'})`, () => [codeBlock(text, 'json')], lines <= OPEN_OUTPUT_LINES);
}

/** A `<details>` whose content is built when it is first opened. */
function folded(summary: string, build: () => Child[], open = false): HTMLElement {
  const details = element('details', { className: 'fold' }, [element('summary', { text: summary })]);
  let built = false;
  const fill = () => {
    if (built) return;
    built = true;
    const body = element('div', { className: 'fold-body' }, build());
    details.appendChild(body);
  };
  if (open) {
    fill();
    details.open = true;
  } else {
    details.addEventListener('toggle', fill);
  }
  return details;
}

function labelled(label: string, value: string): HTMLElement {
  return element('p', { className: 'labelled' }, [element('span', { className: 'label', text: `${label}: ` }), value]);
}

function labelledBlock(label: string, children: Child[]): HTMLElement {
  return element('div', { className: 'labelled-block' }, [element('div', { className: 'label', text: label }), ...children]);
}

function toolName(tool: unknown): string {
  const record = tool as { name?: unknown; title?: unknown; kind?: unknown };
  return String(record.name ?? record.title ?? record.kind ?? 'tool');
}

function shortId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 12)}…` : id;
}

/** JSON text pretty-printed when it parses; shown as it is otherwise. */
function prettyJsonText(text: string): string {
  try {
    return prettyJson(JSON.parse(text));
  } catch {
    return text;
  }
}

/** Indented JSON with every `encrypted_content` left out: the contract says it must never be rendered. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, (key, inner: unknown) => (key === 'encrypted_content' ? undefined : inner), 2) ?? String(value);
}
