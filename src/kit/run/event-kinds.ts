/**
 * What the kit knows of event kinds, apart from src/search: the default source of each
 * kind is read from the contract document itself (the `default` beside each kind's
 * `source`), and the reference's class paths are the kit's own table, built from module
 * and class so that a typo shows as a wrong module, not a silently different string.
 */
import { loadOpenApiDocument, type EventKind } from '../../contract';

const CLASS_MODULE: Record<EventKind, string> = {
  Condensation: 'condenser',
  CondensationRequest: 'condenser',
  CondensationSummaryEvent: 'condenser',
  ConversationErrorEvent: 'conversation_error',
  ConversationStateUpdateEvent: 'conversation_state',
  LLMCompletionLogEvent: 'llm_completion_log',
  ActionEvent: 'llm_convertible.action',
  MessageEvent: 'llm_convertible.message',
  AgentErrorEvent: 'llm_convertible.observation',
  ObservationEvent: 'llm_convertible.observation',
  UserRejectObservation: 'llm_convertible.observation',
  SystemPromptEvent: 'llm_convertible.system',
  TokenEvent: 'token',
  PauseEvent: 'user_action',
};

export const CONTRACT_KINDS = Object.keys(CLASS_MODULE) as EventKind[];

export function isContractKind(value: unknown): value is EventKind {
  return typeof value === 'string' && Object.hasOwn(CLASS_MODULE, value);
}

/** `openhands.sdk.event.llm_convertible.message.MessageEvent`: what the reference's kind filter compares. */
export function classPathOf(kind: EventKind): string {
  return `openhands.sdk.event.${CLASS_MODULE[kind]}.${kind}`;
}

/** The kind a `kind` filter value names, by short name or class path; undefined when it names none. */
export function kindNamedBy(value: string): EventKind | undefined {
  if (isContractKind(value)) return value;
  const className = value.slice(value.lastIndexOf('.') + 1);
  return isContractKind(className) && classPathOf(className) === value ? className : undefined;
}

let defaults: Map<string, string> | undefined;

/** The source a kind's events have when they store none, as the contract declares it. */
export function defaultSourceOf(kind: string): string | undefined {
  defaults ??= readDefaultSources();
  return defaults.get(kind);
}

function readDefaultSources(): Map<string, string> {
  const schemas = loadOpenApiDocument().components.schemas as Record<string, { properties?: { source?: { default?: unknown } } }>;
  const found = new Map<string, string>();
  for (const kind of CONTRACT_KINDS) {
    const declared = schemas[kind]?.properties?.source?.default;
    if (typeof declared === 'string') found.set(kind, declared);
  }
  return found;
}
