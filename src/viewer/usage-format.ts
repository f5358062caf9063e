/**
 * Tokens, cost and time as the viewer shows them: what the agent server recorded, and
 * "no usage recorded" rather than zeros when it recorded none.
 */
import type { components } from '../contract/types';

type ConversationUsage = components['schemas']['ConversationUsage'];
type UsageTotal = components['schemas']['UsageTotal'];

const count = new Intl.NumberFormat('en-US');

/** One conversation's usage in a line: tokens in, out and cached, cost, wall time. */
export function usageText(usage: ConversationUsage | undefined): string {
  if (!usage) return '';
  const parts: string[] = [];
  if (usage.tokens) {
    const { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens } = usage.tokens;
    const cached =
      cache_read_tokens + cache_write_tokens > 0
        ? ` · ${count.format(cache_read_tokens)} cache read, ${count.format(cache_write_tokens)} cache write`
        : '';
    parts.push(`${count.format(input_tokens)} in / ${count.format(output_tokens)} out tokens${cached}`);
  } else parts.push('no token usage recorded');
  if (usage.cost !== null) parts.push(costText(usage.cost));
  if (usage.wall_time_seconds !== null) parts.push(durationText(usage.wall_time_seconds));
  return parts.join(' · ');
}

/** The sum over the listed conversations, saying how many recorded each part. */
export function usageTotalText(total: UsageTotal | undefined): string {
  if (!total || total.conversations === 0) return '';
  const parts = [
    total.tokens
      ? `${count.format(total.tokens.input_tokens)} in / ${count.format(total.tokens.output_tokens)} out tokens (${total.conversations_with_tokens} of ${total.conversations} conversations recorded tokens)`
      : 'no token usage recorded',
  ];
  if (total.cost !== null) parts.push(`${costText(total.cost)} (${total.conversations_with_cost} recorded a cost)`);
  if (total.wall_time_seconds !== null) parts.push(`${durationText(total.wall_time_seconds)} in all`);
  return `Usage: ${parts.join(' · ')}`;
}

function costText(cost: number): string {
  return `$${cost < 0.01 && cost > 0 ? cost.toPrecision(2) : cost.toFixed(2)}`;
}

function durationText(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
