/**
 * A conversation's `ConversationInfo`, composed as the reference composes it: the saved
 * state (`base_state.json`) with the metadata (`meta.json`) laid over it, secrets masked,
 * skills left out unless asked for (docs/reference-behaviour.md, "The conversations catalog").
 */
import type { ConversationExecutionStatus, ConversationInfo } from '../contract';
import { knownSecretsOf, maskSecrets } from '../secrets';

export type JsonObject = Record<string, unknown>;

/** The metadata fields the reference lays over the state, with what it answers when `meta.json` lacks one. */
const META_FIELDS: readonly [string, unknown][] = [
  ['title', null],
  ['metrics', null],
  ['created_at', undefined],
  ['updated_at', undefined],
  ['forked_from_conversation_id', null],
  ['forked_from_event_id', null],
  ['parent_conversation_id', null],
  ['client_tools', []],
  ['tool_module_qualnames', {}],
  ['launched_agent_profile', null],
];

export interface CompositionOptions {
  includeSkills: boolean;
  /** Conversations whose `meta.json` names this one as their parent, as hyphenated UUIDs. */
  subConversationIds: string[];
}

/** The state as the catalog and the socket serve it: a copy with every secret masked (src/secrets), its own known values included. */
export function servedState(baseState: JsonObject): JsonObject {
  return maskSecrets(baseState, knownSecretsOf(baseState));
}

export function composeConversationInfo(baseState: JsonObject, meta: JsonObject, options: CompositionOptions): ConversationInfo {
  const known = knownSecretsOf(baseState);
  const info: JsonObject = maskSecrets(baseState, known);
  for (const [field, absent] of META_FIELDS) {
    const value = meta[field];
    // The times are datetimes to the reference, never null: a meta.json holding null for one has no time to give.
    // The metadata passes through the policy too: an agent profile it names may carry a key.
    if (value !== undefined && !(absent === undefined && typeof value !== 'string')) info[field] = maskSecrets(value, known);
    else if (absent !== undefined) info[field] = structuredClone(absent);
  }
  info['sub_conversation_ids'] = options.subConversationIds;
  // An ACP agent's model state lives in its agent_state; other agents have none of it.
  const agentState = isObject(info['agent_state']) ? info['agent_state'] : {};
  const agent = isObject(info['agent']) ? info['agent'] : {};
  info['current_model_id'] = agentState['acp_current_model_id'] ?? agent['acp_model'] ?? null;
  info['available_models'] = agentState['acp_available_models'] ?? [];
  info['supports_runtime_model_switch'] = agentState['acp_supports_runtime_model_switch'] === true;
  if (!options.includeSkills) trimSkills(agent);
  return info as ConversationInfo;
}

/** `execution_status` as the reference's catalog reads it: `idle` when the state has none. */
export function executionStatusOf(baseState: JsonObject | undefined): ConversationExecutionStatus {
  const status = baseState?.['execution_status'];
  return typeof status === 'string' ? (status as ConversationExecutionStatus) : 'idle';
}

function trimSkills(agent: JsonObject): void {
  const context = agent['agent_context'];
  if (isObject(context) && 'skills' in context) context['skills'] = [];
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
