import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startOurServer, type ServerUnderTest } from '../../dev/schemathesis/servers-under-test';
import { loadOpenApiDocument } from '../../src/contract';
import { codesIn, documentedCells, documentedCodes, schemathesisCodesByFault } from '../support/schemathesis-fault-table';
import { FAULT_PREFIX, FAULTS, type FaultInjector, type FaultName, startFaultRouter } from './support/fault-injector';
import { FAULT_ROWS, type FaultRow } from './support/fault-table';
import { INJECTED_SEARCH_FAULTS } from './support/injected-faults';
import { failedIds, notPassed, runKit } from './support/run-kit';

/*
 * The fault table (docs/contract-kit.md, "The fault table"): each fault of
 * support/fault-table.ts in our otherwise correct server (one server process over the sample
 * data, one injector process routing each fault under its own path prefix), run through the
 * kit (the checks about the fault's operation) and through Schemathesis (the pinned version,
 * dev/schemathesis/schemathesis.toml, a few examples per phase, the fault's operation only). One
 * Schemathesis process tests them all: it is given a copy of the contract in which each fault's
 * operation sits under that fault's prefix, so each operation it tests is one fault's server.
 * Every fault Schemathesis catches, the kit catches; the kit catches every fault; and the
 * table in the docs says exactly what was measured, so it cannot go stale.
 *
 * The same Schemathesis process measures the search faults of the "Injected faults" table
 * (test/kit/faults.test.ts proves the kit catches them), each under a prefix of its own with the
 * search alone: one Python process for every fault rather than one per fault.
 */

/** Schemathesis' workers: the operations it tests at once. */
const SCHEMATHESIS_WORKERS = 2;
/** Kit runs at once: each mostly waits on the server, so two overlap well. */
const CONCURRENT_KIT_RUNS = 2;
/** A conversation of the sample data with events of every kind (Schemathesis' dictionaries draw from the same data). */
const CONVERSATION = 'a3c1e0f2-b4d6-4f0e-9c7a-5b3d1e2f4a6b';
const DOCUMENT = path.resolve(__dirname, '..', '..', 'docs', 'contract-kit.md');
const NONE = 'none';
const SEARCH = 'searchConversationEvents';

/** An injected fault's prefix in the router, apart from the fault table's names. */
const injectedName = (fault: FaultName) => `injected-${fault}`;
/** The rows of the "Injected faults" table measured where the operation they break is added to the contract (test/contract/spec-edit-loop.test.ts). */
const NEW_OPERATION_ROW = /^new operation: /;

interface Measured {
  kit: string[];
  schemathesis: string[];
}

let upstream: ServerUnderTest;
let router: FaultInjector;
let workDirectory: string;
let baseline: ReturnType<typeof notPassed>;
let baselineCodes: string[];
const measured = new Map<string, Measured>();
/** Schemathesis' codes for each injected fault, by its row in the "Injected faults" table. */
const injectedCodes = new Map<string, string[]>();
let elapsedMs = 0;
const timings = { kitMs: 0, schemathesisMs: 0 };

const urlOf = (name: string) => `${router.url}${FAULT_PREFIX}${name}`;
const kitOf = (name: string, checks: readonly string[]) =>
  runKit({ baseUrl: urlOf(name), conversationId: CONVERSATION, levels: ['seed', 'reference'], only: [...checks] });

/** `each` over every item, at most `limit` at a time. */
async function inTurns<T>(items: readonly T[], limit: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await each(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

beforeAll(async () => {
  const started = performance.now();
  workDirectory = mkdtempSync(path.join(os.tmpdir(), 'fault-table-'));
  upstream = await startOurServer();
  router = await startFaultRouter(upstream.url, {
    [NONE]: {},
    ...Object.fromEntries(FAULT_ROWS.map((row) => [row.name, row.fault])),
    ...Object.fromEntries(INJECTED_SEARCH_FAULTS.map(({ fault }) => [injectedName(fault), FAULTS[fault]])),
  });
  const everyCheck = [...new Set(FAULT_ROWS.flatMap((row) => row.kitChecks))];
  // The kit runs in this process while the Schemathesis process runs beside it.
  const kitRuns = (async () => {
    const kitStarted = performance.now();
    baseline = notPassed(await kitOf(NONE, everyCheck)).filter((check) => check.status === 'failed');
    await inTurns(FAULT_ROWS, CONCURRENT_KIT_RUNS, async (row) => {
      measured.set(row.name, { kit: failedIds(await kitOf(row.name, row.kitChecks)), schemathesis: [] });
    });
    timings.kitMs = performance.now() - kitStarted;
  })();
  const schemathesis = await schemathesisCodesByFault({
    routerUrl: router.url,
    document: loadOpenApiDocument(),
    operationIdsByFault: {
      [NONE]: [...new Set(FAULT_ROWS.map((row) => row.operationId))],
      ...Object.fromEntries(FAULT_ROWS.map((row) => [row.name, [row.operationId]])),
      ...Object.fromEntries(INJECTED_SEARCH_FAULTS.map(({ fault }) => [injectedName(fault), [SEARCH]])),
    },
    workDirectory,
    workers: SCHEMATHESIS_WORKERS,
  });
  timings.schemathesisMs = schemathesis.durationMs;
  const { codes } = schemathesis;
  await kitRuns;
  baselineCodes = codes.get(NONE) ?? [];
  for (const row of FAULT_ROWS) measured.get(row.name)!.schemathesis = codes.get(row.name) ?? [];
  for (const { row, fault } of INJECTED_SEARCH_FAULTS) injectedCodes.set(row, codes.get(injectedName(fault)) ?? []);
  // A finding on an operation of no fault would be a finding this test cannot place.
  const placed = new Set([NONE, ...FAULT_ROWS.map((row) => row.name), ...INJECTED_SEARCH_FAULTS.map(({ fault }) => injectedName(fault))]);
  expect([...codes.keys()].filter((name) => !placed.has(name))).toEqual([]);
  elapsedMs = performance.now() - started;
  if (process.env['FAULT_TABLE_PRINT']) process.stdout.write(`${tableOf(measured)}\n\n${timingLine()}\n`);
});

afterAll(async () => {
  await router?.stop();
  await upstream?.stop();
  rmSync(workDirectory, { recursive: true, force: true });
});

function timingLine(): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  return `fault table: ${FAULT_ROWS.length} faults and ${INJECTED_SEARCH_FAULTS.length} injected search faults in ${s(elapsedMs)} (the kit ${s(timings.kitMs)}, Schemathesis ${s(timings.schemathesisMs)}, side by side)`;
}

/** The rows as docs/contract-kit.md shows them, for FAULT_TABLE_PRINT=1. */
function tableOf(results: Map<string, Measured>): string {
  return FAULT_ROWS.map((row) => {
    const result = results.get(row.name)!;
    const kit = result.kit.length > 0 ? `yes: ${result.kit.map((id) => `\`${id}\``).join(', ')}` : 'no';
    const st = result.schemathesis.length > 0 ? `yes: ${result.schemathesis.join(', ')}` : 'no';
    return `| ${row.name} | \`${row.operationId}\` | ${row.description} | ${kit} | ${st} |`;
  }).join('\n');
}

/** The table's rows in the docs, by fault name: the kit's and Schemathesis' cells. */
function documentedRows(): Map<string, { operationId: string; kit: string; schemathesis: string }> {
  const section = readFileSync(DOCUMENT, 'utf8').split('### The fault table')[1] ?? '';
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| fault ') && !line.startsWith('|---'))
    .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| | \|$/g, '').trim()));
  return new Map(
    rows.map(([name = '', operation = '', , kit = '', schemathesis = '']) => [
      name,
      { operationId: operation.replaceAll('`', ''), kit, schemathesis },
    ]),
  );
}

it('has at least twenty faults, over every operation of the contract', () => {
  expect(FAULT_ROWS.length).toBeGreaterThanOrEqual(20);
  const operations = new Set(FAULT_ROWS.map((row) => row.operationId));
  const declared = Object.values(loadOpenApiDocument().paths as Record<string, Record<string, { operationId?: string }>>)
    .flatMap((item) => Object.values(item).map((operation) => operation.operationId))
    .filter((id): id is string => typeof id === 'string');
  expect([...operations].sort()).toEqual([...new Set(declared)].sort());
});

it('the correct server passes the kit and gives Schemathesis nothing, through the same injector', () => {
  expect(baseline).toEqual([]);
  expect(baselineCodes).toEqual([]);
});

it.each(FAULT_ROWS.map((row) => [row.name, row] as [string, FaultRow]))('%s: the kit catches it, as Schemathesis does when it does', (name) => {
  const result = measured.get(name)!;
  expect({ name, kitCaught: result.kit.length > 0 }).toEqual({ name, kitCaught: true });
});

it('every fault Schemathesis catches, the kit catches; the docs table says what was measured', () => {
  const caughtBySchemathesisOnly = FAULT_ROWS.filter(
    (row) => measured.get(row.name)!.schemathesis.length > 0 && measured.get(row.name)!.kit.length === 0,
  );
  expect(caughtBySchemathesisOnly).toEqual([]);
  const documented = documentedRows();
  const want = FAULT_ROWS.map((row) => ({ name: row.name, operationId: row.operationId, schemathesis: measured.get(row.name)!.schemathesis }));
  const got = FAULT_ROWS.map((row) => ({
    name: row.name,
    operationId: documented.get(row.name)?.operationId,
    schemathesis: codesIn(documented.get(row.name)?.schemathesis ?? 'missing'),
  }));
  expect(got).toEqual(want);
  // The kit's cell names checks that failed on the fault.
  for (const row of FAULT_ROWS) {
    const named = [...(documented.get(row.name)?.kit ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]);
    expect({ row: row.name, named: named.filter((id) => !measured.get(row.name)!.kit.includes(id!)) }).toEqual({ row: row.name, named: [] });
    expect(named.length).toBeGreaterThan(0);
  }
  process.stdout.write(`${timingLine()}\n`);
});

it('the "Injected faults" table has a row for every search fault measured, each saying yes with the codes or no with a reason', () => {
  const cells = documentedCells();
  expect(
    Object.keys(cells)
      .filter((row) => !NEW_OPERATION_ROW.test(row))
      .sort(),
  ).toEqual(INJECTED_SEARCH_FAULTS.map(({ row }) => row).sort());
  const malformed = Object.entries(cells).filter(([, cell]) => !(codesIn(cell).length > 0 ? /^yes\b.*: `/ : /^no: \S/).test(cell));
  expect(malformed).toEqual([]);
});

it('Schemathesis reports exactly the codes the "Injected faults" table gives each search fault', () => {
  expect(Object.fromEntries(injectedCodes)).toEqual(documentedCodes(INJECTED_SEARCH_FAULTS.map(({ row }) => row)));
});
