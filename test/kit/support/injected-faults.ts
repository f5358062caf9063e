/**
 * The search faults of docs/contract-kit.md's "Injected faults" table: each fault of the
 * injector, the row that describes it there, and the seed check that names it. The kit's side
 * is proved by test/kit/faults.test.ts, Schemathesis' by test/kit/fault-table.test.ts.
 */
import type { FaultName } from './fault-injector';

export interface InjectedFault {
  readonly fault: FaultName;
  /** The row's first cell in the "Injected faults" table. */
  readonly row: string;
  /** The kit's check that catches it. */
  readonly check: string;
}

export const INJECTED_SEARCH_FAULTS: readonly InjectedFault[] = [
  { fault: 'duplicateAtPageSeam', row: 'the next page starts with the last event of this one', check: 'paging.exactly-once' },
  { fault: 'skippedEventBetweenPages', row: 'a page fetched with `page_id` loses its first event', check: 'paging.exactly-once' },
  { fault: 'caseSensitiveBody', row: '`body` matched case-sensitively', check: 'filters.body-case-insensitive' },
  { fault: 'exclusiveTimestampGte', row: '`timestamp__gte` treated as `>`', check: 'filters.timestamp-gte-inclusive' },
  { fault: 'limit101Accepted', row: '`limit=101` accepted', check: 'errors.limit-above-max' },
  { fault: 'serverErrorOnMalformedDate', row: 'a malformed date answered with 500', check: 'errors.timestamp-gte-garbage' },
  { fault: 'emptyStringAtEnd', row: 'the last page says `""` instead of `null`', check: 'paging.ends-with-null' },
  { fault: 'unsortedDescending', row: '`TIMESTAMP_DESC` pages ascending within each page', check: 'sort.descending' },
  { fault: 'extraPropertyOnEvent', row: 'an event with a property the contract does not allow', check: 'schema.responses' },
  { fault: 'okForUnknownConversation', row: 'an unknown conversation answered 200 with an empty page', check: 'errors.not-found' },
  { fault: 'pagesAsText', row: 'pages sent as `text/plain`', check: 'responses.declared' },
];
