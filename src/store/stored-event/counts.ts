/**
 * What became of a store's stored events, for operators (`/health`): served as stored,
 * served with properties the contract does not list (by property), not served because a
 * newer server wrote a kind or a value the contract does not have, and broken files.
 */
import type { StoredEventMode } from './decide';

export interface StoredEventCounts {
  /** What is done with properties the contract does not list: removed (`contract` mode) or kept (`as-stored`). */
  mode: StoredEventMode;
  /** Served events that had nothing the contract does not list. */
  servedAsStored: number;
  /** Served events that had properties the contract does not list. */
  servedWithUnlistedProperties: number;
  /** Per property path (`parent_id`, `action.some_field`): how many served events had it. */
  unlistedProperties: Record<string, number>;
  /** Events not served because the contract has no such kind, per kind. */
  notServedByKind: Record<string, number>;
  /** Events not served because they hold a value outside one of the contract's enums, per path and value. */
  notServedByValue: Record<string, number>;
  /** Event files not served because they cannot be read, are not JSON, or break the contract. */
  brokenFiles: number;
}

export function emptyStoredEventCounts(mode: StoredEventMode): StoredEventCounts {
  return {
    mode,
    servedAsStored: 0,
    servedWithUnlistedProperties: 0,
    unlistedProperties: tally(),
    notServedByKind: tally(),
    notServedByValue: tally(),
    brokenFiles: 0,
  };
}

/** Keys come from stored files, so the object has no prototype a key such as `__proto__` could reach. */
function tally(): Record<string, number> {
  return Object.create(null) as Record<string, number>;
}

/** Adds `count` under `key`. */
export function countUnder(counts: Record<string, number>, key: string, count = 1): void {
  counts[key] = (counts[key] ?? 0) + count;
}

/** Adds `part` into `total`. */
export function addStoredEventCounts(total: StoredEventCounts, part: StoredEventCounts): void {
  total.servedAsStored += part.servedAsStored;
  total.servedWithUnlistedProperties += part.servedWithUnlistedProperties;
  total.brokenFiles += part.brokenFiles;
  for (const [key, count] of Object.entries(part.unlistedProperties)) countUnder(total.unlistedProperties, key, count);
  for (const [key, count] of Object.entries(part.notServedByKind)) countUnder(total.notServedByKind, key, count);
  for (const [key, count] of Object.entries(part.notServedByValue)) countUnder(total.notServedByValue, key, count);
}

/** The counts as `/health` shows them. */
export function storedEventCountsBody(counts: StoredEventCounts): Record<string, unknown> {
  return {
    unlisted_properties: counts.mode === 'contract' ? 'removed' : 'kept',
    served_as_stored: counts.servedAsStored,
    served_with_unlisted_properties: counts.servedWithUnlistedProperties,
    unlisted_property_counts: counts.unlistedProperties,
    not_served_by_kind: counts.notServedByKind,
    not_served_by_value: counts.notServedByValue,
    broken_files: counts.brokenFiles,
  };
}
