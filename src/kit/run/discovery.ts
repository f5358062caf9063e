/**
 * Before any check, the kit reads the conversation once, unfiltered, and takes its filter
 * values from what it finds (kinds, sources, words of messages, timestamps), so it works
 * against any server's data. This is also where "cannot run" is decided.
 */
import { excerptOf } from '../http';
import type { Finding } from './types';
import type { ObservedEvent } from './observed-event';
import type { Search } from './search-request';
import { walkPages, type Walk, isComplete } from './walk';

/** The largest conversation the kit reads: every check's traffic is bounded by it. */
export const MAX_EVENTS = 1000;

export interface Discovered {
  walk: Walk;
  /** Each event once, in the order of the unfiltered ascending walk. */
  events: ObservedEvent[];
  /** Kinds present, most frequent first. */
  kinds: string[];
  /** Sources present (stored or default), most frequent first. */
  sources: string[];
  /** Words of message text that some but not all messages contain: `body` filter values. */
  words: string[];
  /** Events with a readable timestamp, ascending. */
  timed: ObservedEvent[];
}

export type DiscoveryResult =
  | { ok: true; data: Discovered }
  /** The kit cannot run: exit 2, with what to do. */
  | { ok: false; cannotRun: string }
  /** The server answered, but not with pages: a failure of the contract, nothing else can be judged. */
  | { ok: false; findings: Finding[] };

/** Walks the conversation with the largest page the contract allows (`pageSize`). */
export async function discover(search: Search, describeTarget: string, pageSize: number): Promise<DiscoveryResult> {
  const walk = await walkPages(search, { limit: pageSize }, Math.ceil(MAX_EVENTS / pageSize) + 1);
  const first = walk.pages[0]?.exchange ?? walk.stoppedAt;
  if (walk.end === 'request-failed' && walk.pages.length === 0) {
    // The server answered, past what the kit reads: a finding about the server, not a reason the kit cannot run.
    if (walk.failure?.reason === 'too-large')
      return { ok: false, findings: [{ message: `the unfiltered search: ${walk.failure.message} (${walk.failure.url})` }] };
    return { ok: false, cannotRun: `Cannot reach the server (${walk.failure?.message}) at ${walk.failure?.url}. Is it running? Check --base-url.` };
  }
  if (walk.pages.length === 0 && first) {
    const refusal = cannotRunFor(first.status, describeTarget);
    if (refusal) return { ok: false, cannotRun: refusal };
    return {
      ok: false,
      findings: [
        {
          message: `the unfiltered search failed with status ${first.status}${first.json.ok ? '' : ` (the body is not JSON: ${first.json.error})`}: ${excerptOf(first, 200)}`,
          expected: '200 with an EventPage',
          exchange: first,
        },
      ],
    };
  }
  const events = uniqueEvents(walk);
  if (walk.end === 'page-cap' || events.length > MAX_EVENTS) {
    return {
      ok: false,
      cannotRun: `${describeTarget} has more than ${MAX_EVENTS} events; the kit keeps its traffic bounded and checks conversations of up to ${MAX_EVENTS}. Point it at a smaller one, e.g. a fixture: agent-server-contract fixture --out DIR --events 300.`,
    };
  }
  if (events.length === 0 && isComplete(walk)) {
    return {
      ok: false,
      cannotRun: `${describeTarget} has no events, so nothing can be checked. Use a conversation with events, e.g. a fixture: agent-server-contract fixture --out DIR --events 300.`,
    };
  }
  return { ok: true, data: summarize(walk, events) };
}

function cannotRunFor(status: number, describeTarget: string): string | undefined {
  if (status === 404) {
    return `${describeTarget} was not found (404). Check --conversation-id (a conversation the server has, hyphenated or 32 hex digits) and that --base-url points at the agent server (the search path is /api/conversations/{id}/events/search).`;
  }
  if (status === 401 || status === 403) {
    return `The server refused the request (${status}): it requires a session key. Pass --session-api-key KEY or set SESSION_API_KEY.`;
  }
  return undefined;
}

function uniqueEvents(walk: Walk): ObservedEvent[] {
  const seen = new Set<string>();
  return walk.events.filter((event) => !seen.has(event.key) && Boolean(seen.add(event.key)));
}

function summarize(walk: Walk, events: ObservedEvent[]): Discovered {
  return {
    walk,
    events,
    kinds: byFrequency(events.map((event) => event.kind)),
    sources: byFrequency(events.map((event) => event.source)),
    words: bodyWords(events),
    timed: events.filter((event) => event.micros !== undefined),
  };
}

function byFrequency(values: (string | undefined)[]): string[] {
  const counts = new Map<string, number>();
  for (const value of values) if (value !== undefined) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([value]) => value);
}

const MAX_WORDS = 6;

/**
 * Words that pick out a subset of the messages: found in at least one message and missing
 * from at least one other, most discriminating first. ASCII letters only, so lower-casing
 * means the same thing in every language a server may be written in.
 */
function bodyWords(events: ObservedEvent[]): string[] {
  const texts = events.flatMap((event) => (event.text === undefined ? [] : [event.text]));
  const messagesWith = new Map<string, number>();
  for (const text of texts) {
    for (const word of new Set(text.match(/\b[a-z]{5,12}\b/g) ?? [])) messagesWith.set(word, (messagesWith.get(word) ?? 0) + 1);
  }
  const half = texts.length / 2;
  return [...messagesWith.entries()]
    .filter(([, count]) => count < texts.length || texts.length === 1)
    .sort((a, b) => Math.abs(a[1] - half) - Math.abs(b[1] - half) || a[0].localeCompare(b[0]))
    .slice(0, MAX_WORDS)
    .map(([word]) => word);
}
