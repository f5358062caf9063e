import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runSchemathesis } from '../../dev/schemathesis/run-schemathesis';
import { startOurServer } from '../../dev/schemathesis/servers-under-test';
import { FAULTS, type Fault, hasMalformedTimestamp, isCount, operationFaults, startFaultInjector } from '../kit/support/fault-injector';

/*
 * Which of the kit's injected faults Schemathesis catches, measured: our server over a copy of
 * sample-data/conversations, the fault injector in front of it, one short Schemathesis run per
 * fault with dev/schemathesis/schemathesis.toml, limited to the operation the fault breaks. The
 * codes it reports must be the codes docs/contract-kit.md names for that fault ("Injected
 * faults"), none where it says "no", so the table cannot go stale.
 */
jest.setTimeout(600_000);

const EXAMPLES_PER_PHASE = 5;
/** Runs at once: each is a Python process that takes a core while it starts. */
const CONCURRENT_RUNS = 4;
const DOCUMENT = path.resolve(__dirname, '..', '..', 'docs', 'contract-kit.md');

// The new operation's faults (spec-edit-loop.test.ts) need a rebuilt copy of the project; the
// same four faults on count, whose 200 carries a body, stand in for them here.
const COUNT_FAULTS = operationFaults(isCount, hasMalformedTimestamp);

interface Case {
  /** The fault's row in the table: its first cell. */
  readonly row: string;
  readonly fault: Fault;
  /** The operations Schemathesis tests: the one the fault breaks. */
  readonly operationIds: readonly string[];
}

const SEARCH = 'searchConversationEvents';
const COUNT = 'countConversationEvents';
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
  { row: 'new operation: 500 on an out-of-range parameter', fault: COUNT_FAULTS.serverErrorOnBadParameter, operationIds: [COUNT] },
  { row: 'new operation: an undeclared status (203)', fault: COUNT_FAULTS.undeclaredStatus, operationIds: [COUNT] },
  { row: 'new operation: a body that breaks its schema', fault: COUNT_FAULTS.bodyBreaksSchema, operationIds: [COUNT] },
  { row: 'new operation: `Content-Type: text/plain`', fault: COUNT_FAULTS.wrongContentType, operationIds: [COUNT] },
];

/** The Schemathesis cell of each row of the "Injected faults" table. */
function documentedCells(): Record<string, string> {
  const lines = (readFileSync(DOCUMENT, 'utf8').split('### Injected faults')[1] ?? '').split('\n');
  const table = lines.slice(lines.findIndex((line) => line.startsWith('|')));
  const rows = table
    .slice(
      0,
      table.findIndex((line) => !line.startsWith('|')),
    )
    .filter((line) => !line.startsWith('| fault |') && !line.startsWith('|---'))
    .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| | \|$/g, '').trim()));
  return Object.fromEntries(rows.map(([row = '', , schemathesis = '']) => [row, schemathesis]));
}

/** The `ST` codes of each row's Schemathesis cell, sorted. */
function documentedCodes(): Record<string, string[]> {
  return Object.fromEntries(Object.entries(documentedCells()).map(([row, cell]) => [row, codesIn(cell)]));
}

function codesIn(text: string): string[] {
  return [...new Set(text.match(/\bST\d{3}\b/g) ?? [])].sort();
}

let workDirectory: string;
let upstream: Awaited<ReturnType<typeof startOurServer>>;
beforeAll(async () => {
  workDirectory = mkdtempSync(path.join(os.tmpdir(), 'schemathesis-faults-'));
  upstream = await startOurServer();
});
afterAll(async () => {
  await upstream?.stop();
  rmSync(workDirectory, { recursive: true, force: true });
});

/** The codes of every finding of one run against our server behind the case's fault. */
async function codesFound(name: string, { fault, operationIds }: Case): Promise<string[]> {
  const proxy = await startFaultInjector(upstream.url, fault);
  try {
    const run = await runSchemathesis({
      baseUrl: proxy.url,
      workDirectory: path.join(workDirectory, name),
      maxExamples: EXAMPLES_PER_PHASE,
      extraArguments: [
        // Schemathesis ORs its include filters.
        ...operationIds.flatMap((operationId) => ['--include-operation-id', operationId]),
        '--continue-on-failure',
        // The injector forwards every method as a GET (fetch cannot send TRACE), so a 405 never comes back through it.
        '--exclude-checks',
        'unsupported_method',
      ],
    });
    if (run.exitCode > 1) throw new Error(`Schemathesis could not run against ${name} (exit ${run.exitCode}):\n${run.output.slice(-3000)}`);
    return codesIn(run.findings.flatMap((finding) => finding.codes).join(' '));
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

test('the table has a row for every fault measured here, each saying yes with the codes or no with a reason', () => {
  const cells = documentedCells();
  expect(Object.keys(cells).sort()).toEqual(CASES.map((fault) => fault.row).sort());
  const malformed = Object.entries(cells).filter(([, cell]) => !(codesIn(cell).length > 0 ? /^yes\b.*: `/ : /^no: \S/).test(cell));
  expect(malformed).toEqual([]);
});

test('Schemathesis reports exactly the codes docs/contract-kit.md gives each injected fault, and nothing through the bare proxy', async () => {
  const bareProxy: Case = { row: 'the proxy alone', fault: FAULTS.none, operationIds: [SEARCH, COUNT] };
  const runs = [bareProxy, ...CASES];
  const found = await withLimit(runs, CONCURRENT_RUNS, async (run) => [run.row, await codesFound(`run-${runs.indexOf(run)}`, run)] as const);
  expect(Object.fromEntries(found)).toEqual({ [bareProxy.row]: [], ...documentedCodes() });
});
