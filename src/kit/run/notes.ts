/** Notes at the end of a report: stale or mistyped allow entries, and a likely time-zone mismatch. */
import { allChecks } from './checks';
import type { SearchContract } from '../search-contract';
import type { SuiteResult } from './result';
import { localOffsetAt } from './timestamp-values';

export function allowNotes(allow: Map<string, string>, suites: SuiteResult[], contract: SearchContract): string[] {
  const byId = new Map(suites.flatMap((suite) => suite.checks.map((check) => [check.id, check] as const)));
  const notes: string[] = [];
  for (const id of allow.keys()) {
    const check = byId.get(id);
    if (!check && !isKnownCheckId(id, contract)) notes.push(`the allow file names ${id}, which is not a check of this kit: a typo?`);
    else if (check?.status === 'passed') notes.push(`${id} is allowed to fail but passed: remove it from the allow file`);
  }
  return notes;
}

/** Timestamp failures are most often a zone mismatch between kit and server (see timestamp-values.ts). */
export function timeZoneNotes(suites: SuiteResult[]): string[] {
  const timestampFailures = suites.flatMap((suite) => suite.checks).filter((check) => check.status === 'failed' && check.id.includes('timestamp'));
  if (timestampFailures.length === 0) return [];
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return [
    `${timestampFailures.length} timestamp checks failed with the kit in time zone ${zone} (UTC${localOffsetAt(Date.now() * 1000)}); if the server runs in another zone, run the kit with TZ set to the server's (docs/contract-kit.md, Time zones)`,
  ];
}

/** Ids with a prefix are families of generated checks (`operations.<operationId>...`). */
function isKnownCheckId(id: string, contract: SearchContract): boolean {
  return id.startsWith('compare.') || id.startsWith('operations.') || id === 'discovery' || allChecks(contract).some((check) => check.id === id);
}
