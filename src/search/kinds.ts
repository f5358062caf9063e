import type { EventKind, EventSource } from '../contract';

/**
 * The source an event has when it does not store one (seed section 2.2). Kinds whose
 * source is required have none. Keyed by every kind, so a kind added to the contract
 * does not compile until it is placed here.
 */
export const DEFAULT_SOURCE: Record<EventKind, EventSource | undefined> = {
  Condensation: 'environment',
  CondensationRequest: 'environment',
  CondensationSummaryEvent: 'environment',
  ConversationErrorEvent: undefined,
  ConversationStateUpdateEvent: 'environment',
  LLMCompletionLogEvent: 'environment',
  ActionEvent: 'agent',
  MessageEvent: undefined,
  AgentErrorEvent: 'agent',
  ObservationEvent: 'environment',
  UserRejectObservation: 'environment',
  SystemPromptEvent: 'agent',
  TokenEvent: undefined,
  PauseEvent: 'user',
};

/** The reference server's class path of each kind, which its `kind` filter compares against (docs/reference-behaviour.md, "Search"). */
export const QUALIFIED_KIND: Record<EventKind, string> = {
  Condensation: 'openhands.sdk.event.condenser.Condensation',
  CondensationRequest: 'openhands.sdk.event.condenser.CondensationRequest',
  CondensationSummaryEvent: 'openhands.sdk.event.condenser.CondensationSummaryEvent',
  ConversationErrorEvent: 'openhands.sdk.event.conversation_error.ConversationErrorEvent',
  ConversationStateUpdateEvent: 'openhands.sdk.event.conversation_state.ConversationStateUpdateEvent',
  LLMCompletionLogEvent: 'openhands.sdk.event.llm_completion_log.LLMCompletionLogEvent',
  ActionEvent: 'openhands.sdk.event.llm_convertible.action.ActionEvent',
  MessageEvent: 'openhands.sdk.event.llm_convertible.message.MessageEvent',
  AgentErrorEvent: 'openhands.sdk.event.llm_convertible.observation.AgentErrorEvent',
  ObservationEvent: 'openhands.sdk.event.llm_convertible.observation.ObservationEvent',
  UserRejectObservation: 'openhands.sdk.event.llm_convertible.observation.UserRejectObservation',
  SystemPromptEvent: 'openhands.sdk.event.llm_convertible.system.SystemPromptEvent',
  TokenEvent: 'openhands.sdk.event.token.TokenEvent',
  PauseEvent: 'openhands.sdk.event.user_action.PauseEvent',
};

export const EVENT_KINDS = Object.keys(DEFAULT_SOURCE) as EventKind[];

const KIND_BY_FILTER_VALUE = new Map<string, EventKind>(
  EVENT_KINDS.flatMap((kind) => [
    [kind, kind],
    [QUALIFIED_KIND[kind], kind],
  ]),
);

/** The kind a `kind` filter value names, by short name or class path; undefined matches nothing. */
export function kindOfFilterValue(value: string): EventKind | undefined {
  return KIND_BY_FILTER_VALUE.get(value);
}

export function isEventKind(value: unknown): value is EventKind {
  return typeof value === 'string' && Object.hasOwn(DEFAULT_SOURCE, value);
}
