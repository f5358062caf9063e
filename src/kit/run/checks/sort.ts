/**
 * Sort order (seed section 4.1): events ordered by timestamp, across page boundaries too,
 * compared with microsecond precision. `TIMESTAMP` is the default. At reference level the
 * descending walk is the exact reverse of the ascending one, ties included.
 */
import { firstMismatch, setDifference, listEvents } from '../expectations';
import { describeEvent } from '../observed-event';
import { verdict, type Check, type Finding } from '../types';
import { exchangeField, orderFindings, unfinishedWalk } from './support';
import { SEAM_PAGE_SIZE } from './paging';

const ascending = { limit: SEAM_PAGE_SIZE, sort_order: 'TIMESTAMP' } as const;
const descending = { limit: SEAM_PAGE_SIZE, sort_order: 'TIMESTAMP_DESC' } as const;

const sortAscending: Check = {
  id: 'sort.ascending',
  level: 'seed',
  title: 'sort_order=TIMESTAMP: timestamps never decrease, within pages and across page boundaries',
  async run(context) {
    const walk = await context.walk(ascending);
    return unfinishedWalk(walk, 'TIMESTAMP walk') ?? verdict(orderFindings(walk, 'TIMESTAMP', 'TIMESTAMP'));
  },
};

const sortDescending: Check = {
  id: 'sort.descending',
  level: 'seed',
  title: 'sort_order=TIMESTAMP_DESC: timestamps never increase, across page boundaries too, and the events are the same as ascending',
  async run(context) {
    const walk = await context.walk(descending);
    const unfinished = unfinishedWalk(walk, 'TIMESTAMP_DESC walk');
    if (unfinished) return unfinished;
    const findings = orderFindings(walk, 'TIMESTAMP_DESC', 'TIMESTAMP_DESC');
    const up = await context.walk(ascending);
    const { missing, unexpected } = setDifference(walk.events, up.events);
    if (missing.length + unexpected.length > 0) {
      findings.push({
        message: `the descending walk differs from the ascending one: ${missing.length} missing (${listEvents(missing, 3)}), ${unexpected.length} extra (${listEvents(unexpected, 3)})`,
        expected: 'the same events in either order',
        ...exchangeField(walk.pages[0]?.exchange),
      });
    }
    return verdict(findings);
  },
};

const defaultIsAscending: Check = {
  id: 'sort.default-is-ascending',
  level: 'seed',
  title: 'without sort_order the order is TIMESTAMP (the default)',
  async run(context) {
    const walk = await context.walk({ limit: SEAM_PAGE_SIZE });
    const explicit = await context.walk(ascending);
    const unfinished = unfinishedWalk(walk, 'walk without sort_order') ?? unfinishedWalk(explicit, 'TIMESTAMP walk');
    if (unfinished) return unfinished;
    const at = firstMismatch(walk.events, explicit.events);
    if (at === undefined) return verdict([]);
    const got = walk.events[at];
    const want = explicit.events[at];
    return verdict([
      {
        message: `event ${at + 1} without sort_order is ${got ? describeEvent(got) : 'missing'}, with TIMESTAMP it is ${want ? describeEvent(want) : 'missing'}`,
        expected: 'the TIMESTAMP order',
        ...exchangeField(walk.pages[0]?.exchange),
      },
    ]);
  },
};

const exactReverse: Check = {
  id: 'ref.sort.exact-reverse',
  level: 'reference',
  title: 'TIMESTAMP_DESC is the exact reverse of TIMESTAMP, equal timestamps included',
  async run(context) {
    const down = await context.walk(descending);
    const up = await context.walk(ascending);
    const unfinished = unfinishedWalk(down, 'TIMESTAMP_DESC walk') ?? unfinishedWalk(up, 'TIMESTAMP walk');
    if (unfinished) return unfinished;
    const reversed = [...up.events].reverse();
    const at = firstMismatch(down.events, reversed);
    const findings: Finding[] = [];
    if (at !== undefined) {
      const got = down.events[at];
      const want = reversed[at];
      findings.push({
        message: `event ${at + 1} descending is ${got ? describeEvent(got) : 'missing'}; reversing the ascending walk gives ${want ? describeEvent(want) : 'nothing'}`,
        expected: 'ties in reverse storage order, like the rest',
        ...exchangeField(down.pages[Math.floor(at / SEAM_PAGE_SIZE)]?.exchange),
      });
    }
    return verdict(findings);
  },
};

export function sortChecks(): Check[] {
  return [sortAscending, sortDescending, defaultIsAscending];
}

export function referenceSortChecks(): Check[] {
  return [exactReverse];
}
