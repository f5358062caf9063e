/**
 * `--fixture MANIFEST`: the conversation's content is known, so results are checked
 * exactly: every event served as stored, each filter's result equal to what the manifest
 * predicts (computed with the reference semantics), and the order by timestamp then
 * storage position. Unlike the other checks these do not trust the discovered data.
 */
import { isDeepStrictEqual } from 'node:util';
import type { EventSortOrder } from '../../../contract';
import type { CheckContext } from '../context';
import { describeFilters, expectedEvents, firstMismatch, inSearchOrder, listEvents, setDifference, type Filters } from '../expectations';
import type { FixtureManifest } from '../fixture-manifest';
import { describeEvent, type ObservedEvent } from '../observed-event';
import { withLocalOffset } from '../timestamp-values';
import { skipped, verdict, type Check, type CheckOutcome, type Finding } from '../types';
import { exchangeField, pageShowing, unfinishedWalk } from './support';

function withManifest(run: (context: CheckContext, manifest: FixtureManifest, ordered: ObservedEvent[]) => Promise<CheckOutcome>) {
  return (context: CheckContext) => {
    if (!context.manifest) return Promise.resolve(skipped('no --fixture manifest given'));
    return run(context, context.manifest, inSearchOrder(context.manifest.events));
  };
}

const eventsAsStored: Check = {
  id: 'fixture.events',
  needsManifest: true,
  level: 'seed',
  title: "the conversation returns exactly the manifest's events, each equal to the manifest's copy",
  run: withManifest(async (context, manifest) => {
    const walk = await context.walk({ limit: context.contract.pageSize.maximum });
    const unfinished = unfinishedWalk(walk, 'the unfiltered walk');
    if (unfinished) return unfinished;
    const findings: Finding[] = [];
    const { missing, unexpected } = setDifference(walk.events, manifest.events);
    if (missing.length > 0)
      findings.push({
        message: `${missing.length} events of the manifest are not returned: ${listEvents(missing)}`,
        expected: `all ${manifest.events.length} events`,
      });
    if (unexpected.length > 0)
      findings.push({
        message: `${unexpected.length} returned events are not in the manifest: ${listEvents(unexpected)}`,
        expected: 'only the manifest events',
        ...exchangeField(pageShowing(walk, unexpected[0]!.key)),
      });
    const byKey = new Map(manifest.events.map((event) => [event.key, event]));
    const altered = walk.events.filter((event) => byKey.has(event.key) && !isDeepStrictEqual(event.raw, byKey.get(event.key)!.raw));
    if (altered.length > 0) {
      findings.push({
        message: `${altered.length} events differ from the manifest's copy: ${listEvents(altered, 3)}`,
        expected: 'events served as stored',
        ...exchangeField(pageShowing(walk, altered[0]!.key)),
      });
    }
    return verdict(findings, `${walk.events.length} events returned, ${manifest.events.length} in the manifest`);
  }),
};

/** Filter values from the manifest: every kind, every source, and a few time windows. */
function manifestFilterCases(ordered: ObservedEvent[], sources: readonly string[]): Filters[] {
  const kinds = [...new Set(ordered.flatMap((event) => (event.kind ? [event.kind] : [])))];
  const timed = ordered.filter((event) => event.timestamp !== undefined && event.micros !== undefined);
  const at = (fraction: number) => withLocalOffset(timed[Math.floor((timed.length - 1) * fraction)]!.timestamp!);
  const windows: Filters[] =
    timed.length === 0 ? [] : [{ timestamp__gte: at(0.2) }, { timestamp__lt: at(0.8) }, { timestamp__gte: at(0.4), timestamp__lt: at(0.6) }];
  return [...kinds.map((kind) => ({ kind })), ...sources.map((source) => ({ source })), ...windows];
}

/** Set comparison, per filter, against the manifest. */
async function judgeAgainstManifest(
  context: CheckContext,
  ordered: ObservedEvent[],
  cases: Filters[],
  sortOrder?: EventSortOrder,
): Promise<CheckOutcome> {
  const findings: Finding[] = [];
  for (const filters of cases) {
    const walk = await context.walk({ ...filters, limit: context.contract.pageSize.maximum, ...(sortOrder ? { sort_order: sortOrder } : {}) });
    const unfinished = unfinishedWalk(walk, describeFilters(filters));
    if (unfinished?.status === 'skipped') return unfinished;
    if (unfinished?.status === 'failed') {
      findings.push(...unfinished.findings);
      continue;
    }
    const expected = expectedEvents(ordered, filters, sortOrder);
    const { missing, unexpected } = setDifference(walk.events, expected);
    if (missing.length + unexpected.length > 0 || walk.events.length !== expected.length) {
      findings.push({
        message: `${describeFilters(filters)}: returned ${walk.events.length}, the manifest predicts ${expected.length}; missing ${listEvents(missing, 3) || 'none'}; unexpected ${listEvents(unexpected, 3) || 'none'}`,
        expected: 'exactly the manifest events that satisfy every filter',
        ...exchangeField(walk.pages[0]?.exchange),
      });
    }
  }
  return verdict(findings, `${cases.length} filter sets`);
}

const filtersExact: Check = {
  id: 'fixture.filters',
  needsManifest: true,
  level: 'seed',
  title: "each kind, each source and several time windows return exactly the manifest's matching events",
  run: withManifest((context, _manifest, ordered) => judgeAgainstManifest(context, ordered, manifestFilterCases(ordered, context.contract.sources))),
};

const orderExact: Check = {
  id: 'ref.fixture.order',
  needsManifest: true,
  level: 'reference',
  title: 'the walks in both orders are the manifest sorted by timestamp then storage position (reversed for TIMESTAMP_DESC)',
  run: withManifest(async (context, _manifest, ordered) => {
    const findings: Finding[] = [];
    for (const sortOrder of ['TIMESTAMP', 'TIMESTAMP_DESC'] as const) {
      const walk = await context.walk({ limit: context.contract.pageSize.maximum, sort_order: sortOrder });
      const unfinished = unfinishedWalk(walk, `the ${sortOrder} walk`);
      if (unfinished) return unfinished;
      const expected = sortOrder === 'TIMESTAMP' ? ordered : [...ordered].reverse();
      const at = firstMismatch(walk.events, expected);
      if (at === undefined) continue;
      const got = walk.events[at];
      const want = expected[at];
      findings.push({
        message: `${sortOrder}: event ${at + 1} is ${got ? describeEvent(got) : 'missing'}`,
        expected: want ? `${describeEvent(want)} (stored at position ${want.position})` : 'no more events',
        ...exchangeField(walk.pages[Math.floor(at / context.contract.pageSize.maximum)]?.exchange),
      });
    }
    return verdict(findings);
  }),
};

/** Words of the manifest's messages, for body filters: from the first, middle and last message. */
function manifestWords(ordered: ObservedEvent[]): string[] {
  const texts = ordered.flatMap((event) => (event.text ? [event.text] : []));
  const picks = [texts[0], texts[Math.floor(texts.length / 2)], texts[texts.length - 1]];
  return [...new Set(picks.flatMap((text) => (text?.match(/\b[a-z]{6,12}\b/g) ?? []).slice(0, 1)))];
}

const bodyExact: Check = {
  id: 'ref.fixture.body',
  needsManifest: true,
  level: 'reference',
  title:
    'body filters (as typed and upper-cased) return exactly the messages whose text, as docs/reference-behaviour.md, "Search" builds it, contains the value',
  run: withManifest((context, _manifest, ordered) => {
    const words = manifestWords(ordered);
    if (words.length === 0) return Promise.resolve(skipped('the manifest has no message text'));
    return judgeAgainstManifest(
      context,
      ordered,
      words.flatMap((word) => [{ body: word }, { body: word.toUpperCase() }]),
    );
  }),
};

export function fixtureChecks(): Check[] {
  return [eventsAsStored, filtersExact];
}

export function referenceFixtureChecks(): Check[] {
  return [orderExact, bodyExact];
}
