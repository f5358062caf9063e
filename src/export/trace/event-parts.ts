/**
 * The pieces of stored events that the trace and the trajectory exports both show: message
 * text, a tool call's arguments, a tool result's text, and the times. Every text leaves
 * here through `masked`, the one place these exports apply the secret policy.
 */
import type { Event, EventOfKind } from '../../contract';
import { storedTimestampMicros } from '../../search';
import type { KeptMembers } from '../../json/abridged-json';
import { maskCredentialText } from '../../secrets';
import { observationText } from '../observation-text';

/**
 * The most characters of one text a trace or a trajectory carries. The builders keep texts
 * while a tool call is open or a step waits for its observation, so a text of any length would
 * stay in memory past the turn in which its event was read; what is cut says how much, and the
 * JSON lines export has the event whole.
 */
export const TRACE_TEXT_CHARACTERS = 256 * 1024;

/**
 * The most a trace or a trajectory holds open at once of each thing that waits for later
 * events: tool calls waiting for their results, steps waiting behind them, and the parts
 * (texts and calls) gathered into one model response. Each holds texts of up to
 * TRACE_TEXT_CHARACTERS, so a conversation that never answers its calls, or gives one
 * response thousands of parts, would otherwise hold them all; past the bound the oldest is
 * given out as it stands (a call without its result), or the response is closed.
 */
export const TRACE_HELD_AT_ONCE = 64;

/**
 * Room past the cut in which a credential that starts before it is still seen whole: longer
 * than any credential shape of fixed length, and a shape without an end runs to the end of
 * what is masked, so nothing of it before the cut is left.
 */
const MASKED_PAST_THE_CUT = 4096;

/** How much of a text longer than a trace carries `cutText` needs: what is kept, and the room past it that is masked. */
export const CUT_TEXT_HEAD_CHARACTERS = TRACE_TEXT_CHARACTERS + MASKED_PAST_THE_CUT;

/** The secret policy the other exports apply to what a person reads, then the text cut to what a trace carries. */
export function masked(text: string): string {
  if (text.length <= TRACE_TEXT_CHARACTERS) return maskCredentialText(text);
  return cutText(text.slice(0, CUT_TEXT_HEAD_CHARACTERS), text.length, maskCredentialText);
}

/**
 * A text of `length` characters that is longer than a trace carries, from its head (the first
 * CUT_TEXT_HEAD_CHARACTERS): the head masked by `mask` and cut, then a notice of how much is
 * left out. The result is never longer than TRACE_TEXT_CHARACTERS, so a text cut once (as the
 * trace exports read a large event: abridged-json.ts) is not cut again.
 */
export function cutText(head: string, length: number, mask: (text: string) => string): string {
  // Only the head is masked: masking the whole made a copy of a text of any length in every export at once.
  const maskedHead = mask(head);
  let kept = Math.min(maskedHead.length, TRACE_TEXT_CHARACTERS - omittedNotice(length).length);
  if (head.length < length) {
    // A secret that runs past the head is not masked in it. Masked without the room past the
    // cut, the head differs from where a secret runs into that room: what both agree on holds
    // no secret in part, however much masking shortened or lengthened the text before it.
    kept = Math.min(kept, agreeingLength(maskedHead, mask(head.slice(0, head.length - MASKED_PAST_THE_CUT))));
  }
  // A character written as a surrogate pair is kept whole or not at all.
  if (isHighSurrogate(maskedHead.charCodeAt(kept - 1))) kept -= 1;
  // A copy, not a slice: a slice of a string keeps the whole string alive.
  return Buffer.from(maskedHead.slice(0, kept), 'utf16le').toString('utf16le') + omittedNotice(length - kept);
}

/** How many first characters two texts share. */
function agreeingLength(one: string, other: string): number {
  let shared = 0;
  while (shared < one.length && shared < other.length && one.charCodeAt(shared) === other.charCodeAt(shared)) shared++;
  return shared;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code < 0xdc00;
}

function omittedNotice(omitted: number): string {
  return `\n${notCarried(omitted, 'characters')}`;
}

function notCarried(omitted: number, what: string): string {
  return `[${omitted} more ${what} not carried: the JSON lines export has this event whole]`;
}

/**
 * How many bytes of a large event's structure a trace reads before it leaves out further
 * items and members (abridged-json.ts): room for the parts of one text as long as a trace
 * carries, most characters written in four bytes or fewer, so that a text gathered from many
 * parts shows as much as when the event is read whole.
 */
export const TRACE_STRUCTURE_BYTES = 4 * TRACE_TEXT_CHARACTERS;

const TEXT_PARTS: KeptMembers = { text: {} };
const TOKEN_COUNTS: KeptMembers = { prompt_tokens: {}, completion_tokens: {}, cache_read_tokens: {}, cache_write_tokens: {}, reasoning_tokens: {} };

/**
 * The members of a stored event that the trace and trajectory builders read (here,
 * otlp-trace.ts and atif-trajectory.ts), by where they sit: kept however large the rest of
 * the event, so every event a trace reads has what it reads.
 */
export const TRACE_EVENT_MEMBERS: KeptMembers = {
  kind: {},
  id: {},
  timestamp: {},
  source: {},
  key: {},
  llm_response_id: {},
  tool_call_id: {},
  tool_name: {},
  tool_call: { arguments: {} },
  thought: TEXT_PARTS,
  reasoning_content: {},
  llm_message: { content: TEXT_PARTS, reasoning_content: {} },
  observation: { content: TEXT_PARTS, is_error: {} },
  error: {},
  rejection_reason: {},
  summary: {},
  system_prompt: TEXT_PARTS,
  log_data: {},
  model_name: {},
};

/** What the usage of a completion log reads in the JSON document of its `log_data` (completionLogUsage). */
export const COMPLETION_LOG_MEMBERS: KeptMembers = { response: { id: {}, usage: TOKEN_COUNTS }, usage_summary: TOKEN_COUNTS, cost: {} };

/** What stands for the items a trace leaves out of a list: a text part, which the builders show where they show the list's texts. */
export function omittedItems(count: number): string {
  return JSON.stringify({ type: 'text', text: notCarried(count, 'items') });
}

/** What stands for the members a trace leaves out of an object. */
export function omittedMembers(count: number): string {
  return `${JSON.stringify('not carried')}:${JSON.stringify(notCarried(count, 'members'))}`;
}

/**
 * An event's time in microseconds since the epoch. Stored timestamps are naive: they are
 * read as the search reads them (src/search/timestamps.ts), in this process's local time
 * zone, which is UTC on a server that sets none.
 */
export function eventMicros(event: Event): number | undefined {
  return storedTimestampMicros(event.timestamp);
}

/** The text parts of a message, joined by blank lines; images are named, not sent. */
export function messageText(event: EventOfKind<'MessageEvent'>): string {
  const parts = (event.llm_message.content ?? []).map((part) => ('text' in part && typeof part.text === 'string' ? part.text : '[image]'));
  return masked(parts.join('\n\n'));
}

/** What the agent said with its tool calls: the thought, or else its reasoning. */
export function actionThought(event: EventOfKind<'ActionEvent'>): string {
  const thought = event.thought
    .map((part) => part.text)
    .join('\n')
    .trim();
  return masked(thought || (event.reasoning_content ?? ''));
}

/** A tool call's arguments as an object; text that is not a JSON object is kept as `{ raw }`. */
export function callArguments(event: EventOfKind<'ActionEvent'>): Record<string, unknown> {
  const raw = event.tool_call.arguments;
  // Arguments longer than a trace carries are given as their text, cut.
  if (raw.length > TRACE_TEXT_CHARACTERS) return { raw: masked(raw) };
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return JSON.parse(masked(JSON.stringify(parsed))) as Record<string, unknown>;
  } catch {
    // Not JSON: kept whole below.
  }
  return { raw: masked(raw) };
}

/** The events that answer a tool call. */
export type ToolResultEvent = EventOfKind<'ObservationEvent'> | EventOfKind<'AgentErrorEvent'> | EventOfKind<'UserRejectObservation'>;

export function isToolResult(event: Event): event is ToolResultEvent {
  return event.kind === 'ObservationEvent' || event.kind === 'AgentErrorEvent' || event.kind === 'UserRejectObservation';
}

/** How a tool call ended, as a person reads it. */
export function toolResult(event: ToolResultEvent): { text: string; error: boolean; rejected: boolean } {
  if (event.kind === 'AgentErrorEvent') return { text: masked(event.error), error: true, rejected: false };
  if (event.kind === 'UserRejectObservation') {
    const reason = event.rejection_reason ?? 'rejected';
    return { text: masked(`Rejected: ${reason}`), error: false, rejected: true };
  }
  const observation = event.observation as Record<string, unknown>;
  const text = observationText(observation) ?? JSON.stringify(observation);
  return { text: masked(text), error: observation['is_error'] === true, rejected: false };
}

/** The model the conversation's agent was configured with (`agent.llm.model` of its state). */
export function agentModel(info: Record<string, unknown> | undefined): string | undefined {
  const agent = info?.['agent'];
  const llm = typeof agent === 'object' && agent !== null ? (agent as Record<string, unknown>)['llm'] : undefined;
  const model = typeof llm === 'object' && llm !== null ? (llm as Record<string, unknown>)['model'] : undefined;
  return typeof model === 'string' ? model : undefined;
}
