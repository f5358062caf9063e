/**
 * A stored conversation as one OpenTelemetry trace: the spans, in the OTLP/JSON form, built
 * from the events as they are read, each span given out as soon as it is complete, so a
 * conversation of any length leaves in bounded memory (what stays held is a model response
 * still being read and the tool calls still waiting for their results).
 *
 * The shape follows the OpenTelemetry GenAI agent conventions (`invoke_agent` > `chat`,
 * `execute_tool`) and carries OpenInference's attributes beside them, because tools read
 * one or the other: Phoenix reads OpenInference, Langfuse and others the GenAI ones.
 */
import { createHash } from 'node:crypto';
import type { components, Event } from '../../contract';
import { storedTimestampMicros } from '../../search';
import { type ResponseUsage, completionLogUsage, conversationUsage, responseUsages } from '../usage/conversation-usage';
import {
  TRACE_HELD_AT_ONCE,
  type ToolResultEvent,
  actionThought,
  agentModel,
  callArguments,
  eventMicros,
  isToolResult,
  masked,
  messageText,
  toolResult,
} from './event-parts';

export type OtlpSpan = components['schemas']['OtlpSpan'];
export type OtlpKeyValue = components['schemas']['OtlpKeyValue'];
export type OtlpTraceDocument = components['schemas']['OtlpTraceDocument'];

/** The conversation a trace is made of: its id (hyphenated) and its catalog entry, when it has one. */
export interface TracedConversation {
  conversationId: string;
  title: string | null;
  /** The catalog's `ConversationInfo` (state and metadata), for the model and the recorded usage. */
  info: Record<string, unknown> | undefined;
}

/** The name tools show for the agent, and the instrumentation scope of the spans. */
export const AGENT_NAME = 'OpenHands';
export const TRACE_SCOPE = { name: 'agent-server-contract.conversation-export', version: '1' } as const;

const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_CLIENT = 3;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;

/** The resource every exported span belongs to. */
export function traceResource(): { attributes: OtlpKeyValue[] } {
  return { attributes: attributes({ 'service.name': 'openhands-agent' }) };
}

interface OpenResponse {
  id: string;
  spanId: string;
  start: number;
  end: number;
  texts: string[];
  calls: { name: string; arguments: string }[];
  /** The events gathered into the response. */
  parts: number;
}

/** What a tool call's span carries, kept until its result comes: not the action, whose arguments may be far larger. */
interface OpenCall {
  toolName: string;
  toolCallId: string;
  argumentsJson: string;
  spanId: string;
  start: number;
}

/**
 * Every span of the conversation's trace, the root (`invoke_agent`) last, since its end
 * is the conversation's last event. A conversation without model responses or tool calls
 * is the root alone.
 */
export async function* conversationSpans(conversation: TracedConversation, events: AsyncIterable<Event>): AsyncGenerator<OtlpSpan> {
  const traceId = conversation.conversationId.replaceAll('-', '').toLowerCase();
  const rootId = spanIdOf(traceId, 'conversation');
  const session = { 'gen_ai.conversation.id': conversation.conversationId, 'session.id': conversation.conversationId };
  const defaultModel = agentModel(conversation.info);
  const recordedUsage = responseUsages(conversation.info);
  const loggedUsage = new Map<string, ResponseUsage>();
  const answeredResponses = new Set<string>();
  const openCalls = new Map<string, OpenCall>();
  let response: OpenResponse | undefined;
  let first: number | undefined;
  let last: number | undefined;
  // When the model last had something new to answer: the start of its next call.
  let turnStart: number | undefined;
  let task: string | undefined;
  let answer: string | undefined;

  const span = (fields: Omit<OtlpSpan, 'traceId' | 'parentSpanId'>): OtlpSpan => ({ traceId, parentSpanId: rootId, ...fields });

  const closeResponse = (): OtlpSpan | undefined => {
    if (!response) return undefined;
    const done = response;
    response = undefined;
    answeredResponses.add(done.id);
    const usage = recordedUsage.get(done.id) ?? loggedUsage.get(done.id);
    loggedUsage.delete(done.id);
    const model = usage?.model ?? defaultModel;
    // A response that only called tools says so by its calls.
    const output = done.texts.join('\n\n') || done.calls.map((call) => `${call.name}(${call.arguments})`).join('\n');
    const toolCallAttributes: Record<string, string> = {};
    for (const [index, call] of done.calls.entries()) {
      toolCallAttributes[`llm.output_messages.0.message.tool_calls.${index}.tool_call.function.name`] = call.name;
      toolCallAttributes[`llm.output_messages.0.message.tool_calls.${index}.tool_call.function.arguments`] = call.arguments;
    }
    return span({
      spanId: done.spanId,
      name: model ? `chat ${model}` : 'chat',
      kind: SPAN_KIND_CLIENT,
      startTimeUnixNano: nanos(done.start),
      endTimeUnixNano: nanos(done.end),
      status: { code: STATUS_UNSET },
      attributes: attributes({
        ...session,
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': model,
        'gen_ai.response.model': model,
        'gen_ai.response.id': done.id,
        'gen_ai.usage.input_tokens': usage?.tokens.input_tokens,
        'gen_ai.usage.output_tokens': usage?.tokens.output_tokens,
        'gen_ai.usage.cache_read.input_tokens': usage?.tokens.cache_read_tokens,
        'gen_ai.usage.cache_creation.input_tokens': usage?.tokens.cache_write_tokens,
        'openinference.span.kind': 'LLM',
        'llm.model_name': model,
        'llm.token_count.prompt': usage?.tokens.input_tokens,
        'llm.token_count.completion': usage?.tokens.output_tokens,
        'llm.token_count.total': usage && usage.tokens.input_tokens + usage.tokens.output_tokens,
        'llm.token_count.prompt_details.cache_read': usage?.tokens.cache_read_tokens,
        'llm.token_count.prompt_details.cache_write': usage?.tokens.cache_write_tokens,
        'llm.token_count.completion_details.reasoning': usage?.tokens.reasoning_tokens,
        'llm.cost.total': usage?.cost,
        'output.value': output,
        'output.mime_type': 'text/plain',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': output,
        ...toolCallAttributes,
      }),
    });
  };

  const toolSpan = (call: OpenCall, end: number, result: ToolResultEvent | undefined): OtlpSpan => {
    const outcome = result ? toolResult(result) : { text: 'No result was recorded.', error: false, rejected: false };
    const { argumentsJson } = call;
    return span({
      spanId: call.spanId,
      name: `execute_tool ${call.toolName}`,
      kind: SPAN_KIND_INTERNAL,
      startTimeUnixNano: nanos(call.start),
      endTimeUnixNano: nanos(Math.max(call.start, end)),
      status: outcome.error ? { code: STATUS_ERROR, message: firstLine(outcome.text) } : { code: STATUS_UNSET },
      attributes: attributes({
        ...session,
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.toolName,
        'gen_ai.tool.call.id': call.toolCallId,
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.call.arguments': argumentsJson,
        'gen_ai.tool.call.result': outcome.text,
        'error.type': outcome.error ? (result?.kind === 'AgentErrorEvent' ? 'AgentErrorEvent' : 'tool_error') : undefined,
        'openinference.span.kind': 'TOOL',
        'tool.name': call.toolName,
        'tool_call.id': call.toolCallId,
        'input.value': argumentsJson,
        'input.mime_type': 'application/json',
        'output.value': outcome.text,
        'output.mime_type': 'text/plain',
        'openhands.tool.rejected': outcome.rejected || undefined,
      }),
    });
  };

  for await (const event of events) {
    const at = eventMicros(event);
    if (at !== undefined) {
      // Events are read in timestamp order; one written with an earlier time is placed at the latest seen, so no span runs backwards.
      last = last === undefined ? at : Math.max(last, at);
      first ??= at;
    }
    const now = last ?? 0;
    if (event.kind === 'LLMCompletionLogEvent') {
      const logged = completionLogUsage(event);
      if (logged) loggedUsage.set(logged.responseId, logged.usage);
      continue;
    }
    if (event.kind === 'ConversationStateUpdateEvent' && event.key === 'stats') continue;
    const responseId = responseIdOf(event);
    // A call's arguments as the response's span and the call's span both carry them, masked and cut once.
    const argumentsJson = event.kind === 'ActionEvent' ? JSON.stringify(callArguments(event)) : '';
    if (responseId !== undefined && response?.id === responseId && response.parts < TRACE_HELD_AT_ONCE) {
      addToResponse(response, event, argumentsJson);
    } else {
      const closed = closeResponse();
      if (closed) yield closed;
      if (responseId !== undefined && !answeredResponses.has(responseId)) {
        response = {
          id: responseId,
          spanId: spanIdOf(traceId, `response:${responseId}`),
          start: Math.min(turnStart ?? now, now),
          end: now,
          texts: [],
          calls: [],
          parts: 0,
        };
        addToResponse(response, event, argumentsJson);
      }
    }
    if (event.kind === 'ActionEvent') {
      const oldest = openCalls.size >= TRACE_HELD_AT_ONCE ? openCalls.values().next().value : undefined;
      if (oldest) {
        openCalls.delete(oldest.toolCallId);
        yield toolSpan(oldest, now, undefined);
      }
      openCalls.set(event.tool_call_id, {
        toolName: event.tool_name,
        toolCallId: event.tool_call_id,
        argumentsJson,
        spanId: spanIdOf(traceId, `call:${event.id ?? event.tool_call_id}`),
        start: now,
      });
    } else if (isToolResult(event)) {
      const call = openCalls.get(event.tool_call_id);
      if (call) {
        openCalls.delete(event.tool_call_id);
        yield toolSpan(call, now, event);
      }
    } else if (event.kind === 'MessageEvent') {
      if (event.source === 'user') task ??= messageText(event);
      else if (event.source === 'agent') answer = messageText(event);
    }
    turnStart = now;
  }
  const closed = closeResponse();
  if (closed) yield closed;
  // A conversation without events has no event times; its metadata's creation and update stand in.
  first ??= storedTimestampMicros(conversation.info?.['created_at']) ?? 0;
  const end = Math.max(first, last ?? storedTimestampMicros(conversation.info?.['updated_at']) ?? first);
  for (const call of openCalls.values()) yield toolSpan(call, end, undefined);
  yield {
    traceId,
    spanId: rootId,
    name: `invoke_agent ${AGENT_NAME}`,
    kind: SPAN_KIND_INTERNAL,
    startTimeUnixNano: nanos(first),
    endTimeUnixNano: nanos(end),
    status:
      conversation.info?.['execution_status'] === 'error'
        ? { code: STATUS_ERROR, message: 'The conversation ended in error.' }
        : { code: STATUS_UNSET },
    attributes: attributes({
      ...session,
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': AGENT_NAME,
      'gen_ai.request.model': defaultModel,
      'openinference.span.kind': 'AGENT',
      'agent.name': AGENT_NAME,
      'input.value': task,
      'input.mime_type': task === undefined ? undefined : 'text/plain',
      'output.value': answer,
      'output.mime_type': answer === undefined ? undefined : 'text/plain',
      'openhands.conversation.title': conversation.title === null ? undefined : masked(conversation.title),
      ...usageAttributes(conversation.info),
    }),
  };
}

/** The conversation's recorded totals, under names no tool sums again into its own token counts. */
function usageAttributes(info: Record<string, unknown> | undefined): Record<string, number | undefined> {
  const usage = conversationUsage(info);
  return {
    'openhands.usage.input_tokens': usage.tokens?.input_tokens,
    'openhands.usage.output_tokens': usage.tokens?.output_tokens,
    'openhands.usage.cache_read_tokens': usage.tokens?.cache_read_tokens,
    'openhands.usage.cost': usage.cost ?? undefined,
  };
}

/** `argumentsJson`: an action's arguments as its spans carry them. */
function addToResponse(response: OpenResponse, event: Event, argumentsJson: string): void {
  response.parts += 1;
  if (event.kind === 'ActionEvent') {
    const thought = actionThought(event);
    if (thought && !response.texts.includes(thought)) response.texts.push(thought);
    response.calls.push({ name: event.tool_name, arguments: argumentsJson });
  } else if (event.kind === 'MessageEvent') {
    response.texts.push(messageText(event));
  } else if (event.kind === 'Condensation' && event.summary) {
    response.texts.push(masked(event.summary));
  }
}

/** The model response an event came from: the agent's messages and actions, and condensations. */
function responseIdOf(event: Event): string | undefined {
  if (event.kind === 'ActionEvent') return event.llm_response_id;
  if (event.kind === 'MessageEvent' && event.source === 'agent') return event.llm_response_id ?? undefined;
  if (event.kind === 'Condensation') return event.llm_response_id ?? undefined;
  return undefined;
}

/** A span id derived from the trace and what the span stands for, so exporting twice gives the same ids. */
function spanIdOf(traceId: string, what: string): string {
  return createHash('sha256').update(`${traceId}\n${what}`).digest('hex').slice(0, 16);
}

function nanos(micros: number): string {
  return (BigInt(Math.round(micros)) * 1000n).toString();
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]!.slice(0, 200);
}

/** OTLP attributes; undefined values are left out, integers written as OTLP/JSON writes int64 (a string). */
export function attributes(values: Record<string, string | number | boolean | undefined>): OtlpKeyValue[] {
  const list: OtlpKeyValue[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    if (typeof value === 'string') list.push({ key, value: { stringValue: value } });
    else if (typeof value === 'boolean') list.push({ key, value: { boolValue: value } });
    else if (Number.isInteger(value)) list.push({ key, value: { intValue: String(value) } });
    else list.push({ key, value: { doubleValue: value } });
  }
  return list;
}
