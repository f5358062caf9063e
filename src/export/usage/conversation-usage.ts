/**
 * What a conversation used, read from what its agent server saved: the conversation state's
 * `stats.usage_to_metrics` (one `Metrics` per LLM of the conversation, the condenser's too,
 * each with its accumulated token usage and cost and, as persisted, the per-call
 * `token_usages` and `costs`) and `meta.json`'s creation and update times. Nothing here
 * reads files: it takes the catalog's `ConversationInfo`, which carries both, so the server
 * and a client reading the catalog over HTTP compute the same figures.
 */
import type { components } from '../../contract';
import { storedTimestampMicros } from '../../search';

export type ConversationUsage = components['schemas']['ConversationUsage'];
export type TokenUsage = components['schemas']['TokenUsage'];
export type UsageTotal = components['schemas']['UsageTotal'];

/** Usage of one model response, as recorded for its `llm_response_id`. */
export interface ResponseUsage {
  model: string | undefined;
  tokens: TokenUsage;
  /** Absent when the response's cost was not recorded. */
  cost?: number;
}

type Json = Record<string, unknown>;

const NO_USAGE: ConversationUsage = { tokens: null, cost: null, wall_time_seconds: null };

/** The conversation's usage; each part null when the conversation recorded none of it. */
export function conversationUsage(info: Json | undefined): ConversationUsage {
  if (!info) return NO_USAGE;
  const metrics = llmMetrics(info);
  let tokens: TokenUsage | null = null;
  let cost: number | null = null;
  for (const entry of metrics) {
    const accumulated = isObject(entry['accumulated_token_usage']) ? tokenUsageOf(entry['accumulated_token_usage']) : undefined;
    const calls = Array.isArray(entry['token_usages']) ? entry['token_usages'].length : 0;
    // A registered LLM that was never called holds all-zero counts: that is no record of use.
    if (accumulated && (calls > 0 || tokenSum(accumulated) > 0)) tokens = tokens ? addTokens(tokens, accumulated) : accumulated;
    const accumulatedCost = typeof entry['accumulated_cost'] === 'number' ? entry['accumulated_cost'] : 0;
    const costs = Array.isArray(entry['costs']) ? entry['costs'].length : 0;
    // litellm records no cost for a model it has no price for; the saved zero then means "unknown".
    if (costs > 0 || accumulatedCost > 0) cost = (cost ?? 0) + accumulatedCost;
  }
  return { tokens, cost, wall_time_seconds: wallTimeSeconds(info) };
}

/** Per-response usage from the state's persisted `token_usages`, keyed by `response_id`. */
export function responseUsages(info: Json | undefined): Map<string, ResponseUsage> {
  const usages = new Map<string, ResponseUsage>();
  if (!info) return usages;
  for (const entry of llmMetrics(info)) {
    const model = typeof entry['model_name'] === 'string' ? entry['model_name'] : undefined;
    for (const usage of Array.isArray(entry['token_usages']) ? entry['token_usages'] : []) {
      if (!isObject(usage) || typeof usage['response_id'] !== 'string' || usage['response_id'] === '') continue;
      usages.set(usage['response_id'], { model: typeof usage['model'] === 'string' ? usage['model'] : model, tokens: tokenUsageOf(usage) });
    }
  }
  return usages;
}

/**
 * The usage an `LLMCompletionLogEvent` records (its `log_data`: the response with its id,
 * `usage_summary` and `cost`); undefined for a log without a response (a failed call).
 */
export function completionLogUsage(event: { log_data: string; model_name?: string }): { responseId: string; usage: ResponseUsage } | undefined {
  let data: unknown;
  try {
    data = JSON.parse(event.log_data);
  } catch {
    return undefined;
  }
  if (!isObject(data) || !isObject(data['response']) || typeof data['response']['id'] !== 'string') return undefined;
  const summary = isObject(data['usage_summary']) ? data['usage_summary'] : isObject(data['response']['usage']) ? data['response']['usage'] : {};
  const usage: ResponseUsage = { model: event.model_name, tokens: tokenUsageOf(summary) };
  if (typeof data['cost'] === 'number' && data['cost'] > 0) usage.cost = data['cost'];
  return { responseId: data['response']['id'], usage };
}

/** Usages summed: each part over the conversations that recorded it. */
export function usageTotal(usages: Iterable<ConversationUsage>): UsageTotal {
  const total: UsageTotal = {
    conversations: 0,
    conversations_with_tokens: 0,
    conversations_with_cost: 0,
    tokens: null,
    cost: null,
    wall_time_seconds: null,
  };
  for (const usage of usages) {
    total.conversations += 1;
    if (usage.tokens) {
      total.conversations_with_tokens += 1;
      total.tokens = total.tokens ? addTokens(total.tokens, usage.tokens) : { ...usage.tokens };
    }
    if (usage.cost !== null) {
      total.conversations_with_cost += 1;
      total.cost = (total.cost ?? 0) + usage.cost;
    }
    if (usage.wall_time_seconds !== null) total.wall_time_seconds = (total.wall_time_seconds ?? 0) + usage.wall_time_seconds;
  }
  return total;
}

function llmMetrics(info: Json): Json[] {
  const stats = info['stats'];
  const byUsage = isObject(stats) && isObject(stats['usage_to_metrics']) ? stats['usage_to_metrics'] : {};
  return Object.values(byUsage).filter(isObject);
}

function wallTimeSeconds(info: Json): number | null {
  const created = storedTimestampMicros(info['created_at']);
  const updated = storedTimestampMicros(info['updated_at']);
  if (created === undefined || updated === undefined || updated < created) return null;
  return (updated - created) / 1e6;
}

function tokenUsageOf(record: Json): TokenUsage {
  const count = (key: string): number => (typeof record[key] === 'number' && Number.isFinite(record[key]) ? Math.max(0, Math.trunc(record[key])) : 0);
  return {
    input_tokens: count('prompt_tokens'),
    output_tokens: count('completion_tokens'),
    cache_read_tokens: count('cache_read_tokens'),
    cache_write_tokens: count('cache_write_tokens'),
    reasoning_tokens: count('reasoning_tokens'),
  };
}

function addTokens(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
    reasoning_tokens: a.reasoning_tokens + b.reasoning_tokens,
  };
}

function tokenSum(tokens: TokenUsage): number {
  return tokens.input_tokens + tokens.output_tokens + tokens.cache_read_tokens + tokens.cache_write_tokens + tokens.reasoning_tokens;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
