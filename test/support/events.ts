/**
 * Hand-built events for the search and server tests: each builder returns a contract-valid
 * event with exactly the id, timestamp and source a test names, so boundary tests can place
 * events on precise microseconds. Leaving `source` out stores no source at all, which is
 * how the default-source rule of seed section 2.2 is exercised.
 */
import type { Event, EventOfKind, EventSource } from '../../src/contract';

/** A UUID-shaped event id, readable by its number, valid in a reference event file name. */
export function eventId(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

/** A conversation id (hyphenated, lower case) readable by its number. */
export function conversationId(n: number): string {
  return `c0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

interface Stamp {
  id: string;
  timestamp: string;
  source?: EventSource;
}

function stamped<K extends Event['kind']>(kind: K, { id, timestamp, source }: Stamp, fields: object): EventOfKind<K> {
  return { id, timestamp, ...(source === undefined ? {} : { source }), ...fields, kind } as unknown as EventOfKind<K>;
}

export interface MessageParts {
  /** Text parts of `llm_message.content`. */
  text?: string[];
  /** Image parts of `llm_message.content`, given as their URL counts, placed after the text parts. */
  images?: number[];
  extended?: string[];
  reasoning?: string | null;
}

export function message(stamp: Stamp & { source: EventSource }, parts: MessageParts = {}): EventOfKind<'MessageEvent'> {
  const content = [
    ...(parts.text ?? []).map((text) => ({ type: 'text' as const, text })),
    ...(parts.images ?? []).map((count) => ({ type: 'image', image_urls: Array.from({ length: count }, (_, i) => `https://example.com/${i}.png`) })),
  ];
  return stamped('MessageEvent', stamp, {
    llm_message: {
      role: stamp.source === 'user' ? 'user' : 'assistant',
      content,
      ...(parts.reasoning === undefined ? {} : { reasoning_content: parts.reasoning }),
    },
    ...(parts.extended ? { extended_content: parts.extended.map((text) => ({ type: 'text', text })) } : {}),
  });
}

export function action(stamp: Stamp, thought = 'Let me look at the files.'): EventOfKind<'ActionEvent'> {
  return stamped('ActionEvent', stamp, {
    thought: [{ type: 'text', text: thought }],
    reasoning_content: thought,
    action: { thought, kind: 'ThinkAction' },
    tool_name: 'think',
    tool_call_id: `call_${stamp.id.slice(-6)}`,
    tool_call: { id: `call_${stamp.id.slice(-6)}`, name: 'think', arguments: JSON.stringify({ thought }), origin: 'completion' },
    llm_response_id: `chatcmpl-${stamp.id.slice(-6)}`,
  });
}

export function observation(stamp: Stamp, text = 'Your thought has been logged.'): EventOfKind<'ObservationEvent'> {
  return stamped('ObservationEvent', stamp, {
    tool_name: 'think',
    tool_call_id: `call_${stamp.id.slice(-6)}`,
    observation: { content: [{ type: 'text', text }], kind: 'ThinkObservation' },
    action_id: stamp.id,
  });
}

export function pause(stamp: Stamp): EventOfKind<'PauseEvent'> {
  return stamped('PauseEvent', stamp, {});
}

export function agentError(stamp: Stamp, error = 'Tool call failed.'): EventOfKind<'AgentErrorEvent'> {
  return stamped('AgentErrorEvent', stamp, { tool_name: 'terminal', tool_call_id: `call_${stamp.id.slice(-6)}`, error });
}

export function conversationError(stamp: Stamp & { source: EventSource }, detail = 'The run loop stopped.'): EventOfKind<'ConversationErrorEvent'> {
  return stamped('ConversationErrorEvent', stamp, { code: 'RuntimeError', detail });
}

export function stateUpdate(stamp: Stamp, key = 'execution_status', value: unknown = 'running'): EventOfKind<'ConversationStateUpdateEvent'> {
  return stamped('ConversationStateUpdateEvent', stamp, { key, value });
}

/** The ids of events, for whole-list assertions. */
/** A completion log of the response `responseId`, recording its usage, with `content` as the response's text. */
export function completionLog(
  stamp: Stamp,
  responseId: string,
  usage: { prompt_tokens: number; completion_tokens: number },
  content = 'Done.',
): EventOfKind<'LLMCompletionLogEvent'> {
  const logData = { response: { id: responseId, usage, choices: [{ index: 0, message: { role: 'assistant', content } }] }, cost: 0.25 };
  return stamped('LLMCompletionLogEvent', stamp, {
    filename: `model-${stamp.id.slice(-6)}.json`,
    log_data: JSON.stringify(logData),
    model_name: 'test/model',
    usage_id: 'agent',
  });
}

export function idsOf(events: readonly { id?: string }[]): (string | undefined)[] {
  return events.map((event) => event.id);
}
