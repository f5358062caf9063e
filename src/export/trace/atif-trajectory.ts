/**
 * A stored conversation as an ATIF trajectory (Harbor's Agent Trajectory Interchange Format,
 * the models of `harbor.models.trajectories`): the system prompt, every user message as a
 * `user` step, every model response as an `agent` step with its tool calls and, in the same
 * step, their results naming the call they answer (`source_call_id`), which ATIF requires.
 * Steps are given out in order as soon as nothing more can join them: a response's step waits
 * only for the results of its own tool calls.
 */
import type { Event, EventOfKind } from '../../contract';
import { type ResponseUsage, completionLogUsage, conversationUsage, responseUsages } from '../usage/conversation-usage';
import { TRACE_HELD_AT_ONCE, actionThought, agentModel, callArguments, isToolResult, masked, messageText, toolResult } from './event-parts';
import { AGENT_NAME, type TracedConversation } from './otlp-trace';

/** The newest ATIF version Harbor's models know; every field written here exists in it. */
export const ATIF_VERSION = 'ATIF-v1.8';

export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, unknown>;
}

export interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: 'system' | 'user' | 'agent';
  message: string;
  model_name?: string;
  reasoning_content?: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: { source_call_id: string; content: string }[] };
  metrics?: { prompt_tokens: number; completion_tokens: number; cached_tokens: number; cost_usd?: number };
}

/** Everything of the trajectory but its steps: what is known before the first event and after the last. */
export interface AtifFrame {
  head: { schema_version: string; session_id: string; agent: { name: string; version: string; model_name?: string } };
  /** Called after the last step: the trajectory's totals, where recorded. */
  finalMetrics(stepCount: number): Record<string, number>;
}

export function atifFrame(conversation: TracedConversation): AtifFrame {
  const model = agentModel(conversation.info);
  return {
    head: {
      schema_version: ATIF_VERSION,
      session_id: conversation.conversationId,
      // The agent server does not record the agent's release in what it stores.
      agent: { name: AGENT_NAME, version: 'unknown', ...(model ? { model_name: model } : {}) },
    },
    finalMetrics(stepCount) {
      const usage = conversationUsage(conversation.info);
      const metrics: Record<string, number> = { total_steps: stepCount };
      if (usage.tokens) {
        metrics['total_prompt_tokens'] = usage.tokens.input_tokens;
        metrics['total_completion_tokens'] = usage.tokens.output_tokens;
        metrics['total_cached_tokens'] = usage.tokens.cache_read_tokens;
      }
      if (usage.cost !== null) metrics['total_cost_usd'] = usage.cost;
      return metrics;
    },
  };
}

interface HeldStep {
  step: AtifStep;
  responseId: string | undefined;
  waitingFor: Set<string>;
  /** The messages and tool calls gathered into the step. */
  parts: number;
}

/** The trajectory's steps in order, numbered from 1. */
export async function* atifSteps(conversation: TracedConversation, events: AsyncIterable<Event>): AsyncGenerator<AtifStep> {
  const recordedUsage = responseUsages(conversation.info);
  const loggedUsage = new Map<string, ResponseUsage>();
  const held: HeldStep[] = [];
  const stepOfCall = new Map<string, HeldStep>();
  let nextId = 1;

  const open = (step: Omit<AtifStep, 'step_id'>, responseId?: string): HeldStep => {
    const entry: HeldStep = { step: { step_id: nextId++, ...step }, responseId, waitingFor: new Set(), parts: 0 };
    held.push(entry);
    return entry;
  };
  const current = (): HeldStep | undefined => held[held.length - 1];
  // Steps before the newest can take nothing but their calls' results; past the bound, the
  // oldest is given out without the results it still waits for.
  function* ready(all: boolean): Generator<AtifStep> {
    while (held.length > 0 && (all || held.length > 1) && (held[0]!.waitingFor.size === 0 || held.length > TRACE_HELD_AT_ONCE)) {
      const entry = held.shift()!;
      for (const callId of entry.waitingFor) stepOfCall.delete(callId);
      yield entry.step;
    }
    if (all) for (const entry of held.splice(0)) yield entry.step;
  }

  for await (const event of events) {
    if (event.kind === 'LLMCompletionLogEvent') {
      const logged = completionLogUsage(event);
      if (logged) loggedUsage.set(logged.responseId, logged.usage);
      continue;
    }
    if (event.kind === 'SystemPromptEvent') {
      open({ ...timestampOf(event), source: 'system', message: masked(event.system_prompt.text) });
    } else if (event.kind === 'MessageEvent' && event.source === 'user') {
      open({ ...timestampOf(event), source: 'user', message: messageText(event) });
    } else if ((event.kind === 'MessageEvent' && event.source === 'agent') || event.kind === 'ActionEvent') {
      const responseId = event.llm_response_id ?? undefined;
      let entry = current();
      if (entry?.step.source !== 'agent' || responseId === undefined || entry.responseId !== responseId || entry.parts >= TRACE_HELD_AT_ONCE) {
        const usage = responseId === undefined ? undefined : (recordedUsage.get(responseId) ?? loggedUsage.get(responseId));
        if (responseId !== undefined) loggedUsage.delete(responseId);
        const model = usage?.model ?? agentModel(conversation.info);
        entry = open(
          {
            ...timestampOf(event),
            source: 'agent',
            message: '',
            ...(model ? { model_name: model } : {}),
            ...(usage ? { metrics: metricsOf(usage) } : {}),
          },
          responseId,
        );
      }
      addToAgentStep(entry, event, stepOfCall);
    } else if (isToolResult(event)) {
      const entry = stepOfCall.get(event.tool_call_id);
      if (entry) {
        stepOfCall.delete(event.tool_call_id);
        entry.waitingFor.delete(event.tool_call_id);
        entry.step.observation ??= { results: [] };
        entry.step.observation.results.push({ source_call_id: event.tool_call_id, content: toolResult(event).text });
      }
    }
    yield* ready(false);
  }
  yield* ready(true);
}

function addToAgentStep(entry: HeldStep, event: EventOfKind<'MessageEvent'> | EventOfKind<'ActionEvent'>, stepOfCall: Map<string, HeldStep>): void {
  const step = entry.step;
  entry.parts += 1;
  if (event.kind === 'MessageEvent') {
    step.message = joined(step.message, messageText(event));
    if (event.llm_message.reasoning_content) step.reasoning_content = masked(event.llm_message.reasoning_content);
    return;
  }
  const thought = actionThought(event);
  if (thought && !step.message.includes(thought)) step.message = joined(step.message, thought);
  if (event.reasoning_content) step.reasoning_content = masked(event.reasoning_content);
  step.tool_calls ??= [];
  step.tool_calls.push({ tool_call_id: event.tool_call_id, function_name: event.tool_name, arguments: callArguments(event) });
  entry.waitingFor.add(event.tool_call_id);
  stepOfCall.set(event.tool_call_id, entry);
}

function metricsOf(usage: ResponseUsage): NonNullable<AtifStep['metrics']> {
  return {
    prompt_tokens: usage.tokens.input_tokens,
    completion_tokens: usage.tokens.output_tokens,
    cached_tokens: usage.tokens.cache_read_tokens,
    ...(usage.cost === undefined ? {} : { cost_usd: usage.cost }),
  };
}

function timestampOf(event: Event): { timestamp?: string } {
  return typeof event.timestamp === 'string' ? { timestamp: event.timestamp } : {};
}

function joined(a: string, b: string): string {
  return a && b ? `${a}\n\n${b}` : a || b;
}
