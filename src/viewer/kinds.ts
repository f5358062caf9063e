/**
 * How the page names and groups event kinds, and the sources its filter offers. The
 * contract only gives types; the record and the check below make `tsc` fail when the
 * contract gains, loses or renames a kind or a source.
 */
import type { EventKind, EventSource } from '../contract/types';
import { EVENT_KINDS } from '../search/kinds';

export { EVENT_KINDS };

export const EVENT_SOURCES = ['user', 'agent', 'environment'] as const satisfies readonly EventSource[];

type Unlisted<All, Listed> = [Exclude<All, Listed>] extends [never] ? true : { unlisted: Exclude<All, Listed> };
const everySourceListed: Unlisted<EventSource, (typeof EVENT_SOURCES)[number]> = true;
void everySourceListed;

/** How an event is presented: its group picks the badge colour and icon; the label is always written out. */
export type KindGroup = 'message' | 'action' | 'observation' | 'error' | 'rejection' | 'condensation' | 'system' | 'state';

export const KIND_PRESENTATION: Record<EventKind, { label: string; group: KindGroup }> = {
  MessageEvent: { label: 'Message', group: 'message' },
  ActionEvent: { label: 'Action', group: 'action' },
  ObservationEvent: { label: 'Observation', group: 'observation' },
  UserRejectObservation: { label: 'Rejected', group: 'rejection' },
  AgentErrorEvent: { label: 'Agent error', group: 'error' },
  ConversationErrorEvent: { label: 'Conversation error', group: 'error' },
  SystemPromptEvent: { label: 'System prompt', group: 'system' },
  Condensation: { label: 'Condensation', group: 'condensation' },
  CondensationRequest: { label: 'Condensation request', group: 'condensation' },
  CondensationSummaryEvent: { label: 'Condensation summary', group: 'condensation' },
  ConversationStateUpdateEvent: { label: 'State update', group: 'state' },
  LLMCompletionLogEvent: { label: 'LLM completion log', group: 'system' },
  TokenEvent: { label: 'Tokens', group: 'system' },
  PauseEvent: { label: 'Pause', group: 'state' },
};

export function isEventKind(value: string): value is EventKind {
  return (EVENT_KINDS as readonly string[]).includes(value);
}

export function isEventSource(value: string): value is EventSource {
  return (EVENT_SOURCES as readonly string[]).includes(value);
}
