import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startOurServer, type ServerUnderTest } from '../../dev/schemathesis/servers-under-test';
import { FAULTS, type Fault, startFaultInjector } from '../kit/support/fault-injector';
import { codesIn, documentedCells, documentedCodes, schemathesisCodes } from '../support/schemathesis-fault-table';

/*
 * Which of the kit's injected faults Schemathesis catches, measured: our server over a copy of
 * sample-data/conversations, the fault injector in front of it, one short Schemathesis run per
 * fault, limited to the operation the fault breaks. The codes it reports must be the codes
 * docs/contract-kit.md gives that fault ("Injected faults"), none where it says "no", so the
 * table cannot go stale. The new operation's four rows are measured where that operation is
 * built, in test/contract/spec-edit-loop.test.ts.
 */

/** Runs at once: each is a Python process that takes a core while it starts. */
const CONCURRENT_RUNS = 4;
const SEARCH = 'searchConversationEvents';
const COUNT = 'countConversationEvents';

interface Case {
  /** The fault's row in the table: its first cell. */
  readonly row: string;
  readonly fault: Fault;
  /** The operations Schemathesis tests: the ones the fault breaks. */
  readonly operationIds: readonly string[];
}

const CASES: Case[] = [
  { row: 'the next page starts with the last event of this one', fault: FAULTS.duplicateAtPageSeam, operationIds: [SEARCH] },
  { row: 'a page fetched with `page_id` loses its first event', fault: FAULTS.skippedEventBetweenPages, operationIds: [SEARCH] },
  { row: '`body` matched case-sensitively', fault: FAULTS.caseSensitiveBody, operationIds: [SEARCH] },
  { row: '`timestamp__gte` treated as `>`', fault: FAULTS.exclusiveTimestampGte, operationIds: [SEARCH] },
  { row: '`limit=101` accepted', fault: FAULTS.limit101Accepted, operationIds: [SEARCH] },
  { row: 'a malformed date answered with 500', fault: FAULTS.serverErrorOnMalformedDate, operationIds: [SEARCH] },
  { row: 'the last page says `""` instead of `null`', fault: FAULTS.emptyStringAtEnd, operationIds: [SEARCH] },
  { row: '`TIMESTAMP_DESC` pages ascending within each page', fault: FAULTS.unsortedDescending, operationIds: [SEARCH] },
  { row: 'an event with a property the contract does not allow', fault: FAULTS.extraPropertyOnEvent, operationIds: [SEARCH] },
  { row: 'an unknown conversation answered 200 with an empty page', fault: FAULTS.okForUnknownConversation, operationIds: [SEARCH] },
  { row: 'pages sent as `text/plain`', fault: FAULTS.pagesAsText, operationIds: [SEARCH] },
];
const NEW_OPERATION_ROW = /^new operation: /;

let workDirectory: string;
let upstream: ServerUnderTest;
beforeAll(async () => {
  workDirectory = mkdtempSync(path.join(os.tmpdir(), 'schemathesis-faults-'));
  upstream = await startOurServer();
});
afterAll(async () => {
  await upstream?.stop();
  rmSync(workDirectory, { recursive: true, force: true });
});

async function codesFound(name: string, { fault, operationIds }: Case): Promise<string[]> {
  const proxy = await startFaultInjector(upstream.url, fault);
  try {
    return await schemathesisCodes({ baseUrl: proxy.url, operationIds, workDirectory: path.join(workDirectory, name) });
  } finally {
    await proxy.stop();
  }
}

/** `each` over every item, at most `limit` at a time, results in the items' order. */
async function withLimit<T, R>(items: readonly T[], limit: number, each: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await each(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

test('the table has a row for every fault measured, each saying yes with the codes or no with a reason', () => {
  const cells = documentedCells();
  expect(
    Object.keys(cells)
      .filter((row) => !NEW_OPERATION_ROW.test(row))
      .sort(),
  ).toEqual(CASES.map((fault) => fault.row).sort());
  const malformed = Object.entries(cells).filter(([, cell]) => !(codesIn(cell).length > 0 ? /^yes\b.*: `/ : /^no: \S/).test(cell));
  expect(malformed).toEqual([]);
});

test('Schemathesis reports exactly the codes docs/contract-kit.md gives each injected fault, and nothing through the bare proxy', async () => {
  const bareProxy: Case = { row: 'the proxy alone', fault: FAULTS.none, operationIds: [SEARCH, COUNT] };
  const runs = [bareProxy, ...CASES];
  const found = await withLimit(runs, CONCURRENT_RUNS, async (run) => [run.row, await codesFound(`run-${runs.indexOf(run)}`, run)] as const);
  expect(Object.fromEntries(found)).toEqual({ [bareProxy.row]: [], ...documentedCodes(CASES.map((fault) => fault.row)) });
});
