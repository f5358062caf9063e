/**
 * Filters (seed section 4.1): each result holds exactly the events that satisfy every
 * filter given. Values come from the conversation itself (its kinds, its sources, words of
 * its messages, timestamps of its events), so the checks work on any server's data.
 * Timestamp values carry the kit's local offset; see timestamp-values.ts for why.
 */
import type { CheckContext } from '../context';
import { describeFilters, expectedEvents, type Filters } from '../expectations';
import { describeEvent, type ObservedEvent } from '../observed-event';
import { withLocalOffset } from '../timestamp-values';
import { skipped, verdict, type Check, type CheckOutcome, type Finding } from '../types';
import { exchangeField, resultFindings, unfinishedWalk } from './support';

/** Walks each filter set with the largest page and compares with what the data predicts. */
export async function judgeFilterCases(context: CheckContext, cases: Filters[]): Promise<CheckOutcome> {
  const findings: Finding[] = [];
  for (const filters of cases) {
    const walk = await context.walk({ ...filters, limit: context.contract.pageSize.maximum });
    const unfinished = unfinishedWalk(walk, describeFilters(filters));
    if (unfinished?.status === 'skipped') return unfinished;
    if (unfinished?.status === 'failed') {
      findings.push(...unfinished.findings);
      continue;
    }
    findings.push(...resultFindings(walk, expectedEvents(context.data.events, filters), filters));
  }
  return verdict(findings, `${cases.length} filter sets: ${cases.map((filters) => describeFilters(filters)).join('; ')}`);
}

/** The event at a fraction of the timed events, for a timestamp filter value. */
export function timedAt(context: CheckContext, fraction: number): ObservedEvent | undefined {
  const { timed } = context.data;
  return timed[Math.min(timed.length - 1, Math.floor(timed.length * fraction))];
}

export function timestampValue(event: ObservedEvent): string {
  return withLocalOffset(event.timestamp!);
}

const kindCases = (context: CheckContext): Filters[] => context.data.kinds.map((kind) => ({ kind }));
const sourceCases = (context: CheckContext): Filters[] =>
  [...new Set([...context.data.sources, ...context.contract.sources])].map((source) => ({ source }));
const bodyCases = (context: CheckContext): Filters[] => context.data.words.slice(0, 3).map((body) => ({ body }));
const bodyCaseVariants = (context: CheckContext): Filters[] =>
  context.data.words
    .slice(0, 2)
    .flatMap((word) => [word.toUpperCase(), word[0]!.toUpperCase() + word.slice(1)])
    .map((body) => ({ body }));
const boundaryCase = (context: CheckContext, name: 'timestamp__gte' | 'timestamp__lt'): Filters[] => {
  const boundary = timedAt(context, 0.5);
  return boundary ? [{ [name]: timestampValue(boundary) }] : [];
};
const windowCases = (context: CheckContext): Filters[] => {
  const from = timedAt(context, 1 / 3);
  const to = timedAt(context, 2 / 3);
  return from && to ? [{ timestamp__gte: timestampValue(from), timestamp__lt: timestampValue(to) }] : [];
};
const microsecondCases = (context: CheckContext): Filters[] => {
  const pair = subMillisecondPair(context.data.timed);
  if (!pair) return [];
  const value = timestampValue(pair[1]);
  return [{ timestamp__gte: value }, { timestamp__lt: value }];
};

/** Every filter set the seed-level filter checks walk; other operations (count) are judged on the same sets. */
export function seedFilterSets(context: CheckContext): Filters[] {
  return [
    ...kindCases(context),
    ...sourceCases(context),
    ...bodyCases(context),
    ...bodyCaseVariants(context),
    ...boundaryCase(context, 'timestamp__gte'),
    ...boundaryCase(context, 'timestamp__lt'),
    ...windowCases(context),
    ...microsecondCases(context),
    ...combinations(context),
  ];
}

const byKind: Check = {
  id: 'filters.kind',
  level: 'seed',
  title: 'kind=<each kind present> returns exactly the events of that kind',
  run: (context) => judgeFilterCases(context, kindCases(context)),
};

const bySource: Check = {
  id: 'filters.source',
  level: 'seed',
  title: "source=agent|user|environment returns exactly the events of that source, using the kind's default source when an event has none",
  run: (context) => judgeFilterCases(context, sourceCases(context)),
};

const byBody: Check = {
  id: 'filters.body',
  level: 'seed',
  title: 'body=<a word of a message> returns exactly the message events whose text contains it',
  run: (context) => {
    const cases = bodyCases(context);
    if (cases.length === 0) return Promise.resolve(skipped('no message event with searchable words in this conversation'));
    return judgeFilterCases(context, cases);
  },
};

const bodyCaseInsensitive: Check = {
  id: 'filters.body-case-insensitive',
  level: 'seed',
  title: 'body matches case-insensitively: an upper-case or capitalised word finds the same events',
  run: (context) => {
    const cases = bodyCaseVariants(context);
    if (cases.length === 0) return Promise.resolve(skipped('no message event with searchable words in this conversation'));
    return judgeFilterCases(context, cases);
  },
};

const gteInclusive: Check = {
  id: 'filters.timestamp-gte-inclusive',
  level: 'seed',
  title: 'timestamp__gte keeps events at or after the instant: an event at exactly that instant is included',
  async run(context) {
    const boundary = timedAt(context, 0.5);
    if (!boundary) return skipped('no event with a readable timestamp');
    const filters = { timestamp__gte: timestampValue(boundary) };
    return withBoundaryHint(await judgeFilterCases(context, [filters]), context, filters, boundary, true);
  },
};

const ltExclusive: Check = {
  id: 'filters.timestamp-lt-exclusive',
  level: 'seed',
  title: 'timestamp__lt keeps events strictly before the instant: an event at exactly that instant is excluded',
  async run(context) {
    const boundary = timedAt(context, 0.5);
    if (!boundary) return skipped('no event with a readable timestamp');
    const filters = { timestamp__lt: timestampValue(boundary) };
    return withBoundaryHint(await judgeFilterCases(context, [filters]), context, filters, boundary, false);
  },
};

/** Says plainly when the event on the boundary itself is the one wrongly in or out. */
async function withBoundaryHint(
  outcome: CheckOutcome,
  context: CheckContext,
  filters: Filters,
  boundary: ObservedEvent,
  included: boolean,
): Promise<CheckOutcome> {
  if (outcome.status !== 'failed') return outcome;
  const walk = await context.walk({ ...filters, limit: context.contract.pageSize.maximum });
  const returned = walk.events.some((event) => event.key === boundary.key);
  if (returned === included) return outcome;
  const [name, value] = Object.entries(filters)[0]!;
  const message = included
    ? `${describeEvent(boundary)} has exactly the instant ${name}=${value} and is missing: ${name} must be inclusive`
    : `${describeEvent(boundary)} has exactly the instant ${name}=${value} and is returned: ${name} must be exclusive`;
  return {
    ...outcome,
    findings: [
      { message, expected: included ? 'timestamp >= value' : 'timestamp < value', ...exchangeField(walk.pages[0]?.exchange) },
      ...outcome.findings,
    ],
  };
}

const window: Check = {
  id: 'filters.timestamp-window',
  level: 'seed',
  title: 'timestamp__gte with timestamp__lt returns exactly the events in [gte, lt)',
  async run(context) {
    const cases = windowCases(context);
    if (cases.length === 0) return skipped('no event with a readable timestamp');
    return judgeFilterCases(context, cases);
  },
};

const microseconds: Check = {
  id: 'filters.timestamp-microseconds',
  level: 'seed',
  title: 'timestamp filters compare with microsecond precision: two events within one millisecond are told apart',
  async run(context) {
    const cases = microsecondCases(context);
    if (cases.length === 0) return skipped('no two events a few microseconds apart within one millisecond in this conversation');
    return judgeFilterCases(context, cases);
  },
};

function subMillisecondPair(timed: ObservedEvent[]): [ObservedEvent, ObservedEvent] | undefined {
  for (let index = 1; index < timed.length; index++) {
    const [a, b] = [timed[index - 1]!, timed[index]!];
    if (a.micros! < b.micros! && Math.floor(a.micros! / 1000) === Math.floor(b.micros! / 1000)) return [a, b];
  }
  return undefined;
}

const combined: Check = {
  id: 'filters.combined',
  level: 'seed',
  title: 'filters combine: the result is the intersection of every filter given',
  run: (context) => judgeFilterCases(context, combinations(context)),
};

/** Combinations drawn from the data, so that most of them have a non-empty answer. */
function combinations(context: CheckContext): Filters[] {
  const { kinds, sources, words, events } = context.data;
  const [early, middle, late] = [timedAt(context, 0.25), timedAt(context, 0.5), timedAt(context, 0.75)];
  const cases: Filters[] = [];
  const kind = kinds[0];
  if (kind) cases.push({ kind, source: events.find((event) => event.kind === kind)?.source ?? 'agent' });
  if (sources[0] && middle) cases.push({ source: sources[0], timestamp__gte: timestampValue(middle) });
  if (kinds[1] && early && late) cases.push({ kind: kinds[1], timestamp__gte: timestampValue(early), timestamp__lt: timestampValue(late) });
  const word = words[0];
  if (word && late) cases.push({ kind: 'MessageEvent', body: word, timestamp__lt: timestampValue(late) });
  const message = events.find((event) => word !== undefined && event.text?.includes(word));
  if (word && message?.source && early) {
    cases.push({
      kind: 'MessageEvent',
      source: message.source,
      body: word,
      timestamp__gte: timestampValue(context.data.timed[0]!),
      ...(late ? { timestamp__lt: timestampValue(late) } : {}),
    });
  }
  return cases;
}

export function filterChecks(): Check[] {
  return [byKind, bySource, byBody, bodyCaseInsensitive, gteInclusive, ltExclusive, window, microseconds, combined];
}
