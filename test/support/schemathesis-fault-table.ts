/**
 * The "Injected faults" table of docs/contract-kit.md, whose Schemathesis column the tests that
 * inject the faults measure, and the short Schemathesis run they get: one for many faults behind
 * a fault router, each under its own path prefix.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runSchemathesis } from '../../dev/schemathesis/run-schemathesis';
import type { OpenApiDocument } from '../../src/contract';
import { FAULT_PREFIX } from '../kit/support/fault-injector';

const DOCUMENT = path.resolve(__dirname, '..', '..', 'docs', 'contract-kit.md');
const EXAMPLES_PER_PHASE = 5;

/** The Schemathesis cell of each row of the table, by the row's first cell. */
export function documentedCells(): Record<string, string> {
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

/** The `ST` codes a cell names, sorted. */
export function codesIn(text: string): string[] {
  return [...new Set(text.match(/\bST\d{3}\b/g) ?? [])].sort();
}

/** The codes each of `rows` has in the table. */
export function documentedCodes(rows: readonly string[]): Record<string, string[]> {
  const cells = documentedCells();
  return Object.fromEntries(
    rows.map((row) => {
      const cell = cells[row];
      if (cell === undefined) throw new Error(`docs/contract-kit.md has no row "${row}" in its "Injected faults" table.`);
      return [row, codesIn(cell)];
    }),
  );
}

/**
 * `document` with, for each fault, its operations copied under that fault's prefix of a fault
 * router (`/fault/<name>/api/...`), their operationIds suffixed with the fault's name; nothing else.
 */
function documentUnderFaultPrefixes(document: OpenApiDocument, operationIdsByFault: Record<string, readonly string[]>): object {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [fault, operationIds] of Object.entries(operationIdsByFault))
    for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, { operationId?: string }>>))
      for (const [method, operation] of Object.entries(item))
        if (operation.operationId !== undefined && operationIds.includes(operation.operationId)) {
          const placed = `${FAULT_PREFIX}${fault}${template}`;
          paths[placed] = { ...(paths[placed] ?? {}), [method]: { ...operation, operationId: `${operation.operationId}__${fault}` } };
        }
  return { ...document, paths };
}

/**
 * One Schemathesis process for many faults behind one fault router: each fault's operations are
 * tested under its prefix (one Python start rather than one per fault), and the `ST` codes of the
 * findings come back by fault. The phases are those that test one operation at a time: the
 * stateful phase chains operations, here across the faults' prefixes, so its findings would name no one fault.
 */
export async function schemathesisCodesByFault(options: {
  routerUrl: string;
  document: OpenApiDocument;
  operationIdsByFault: Record<string, readonly string[]>;
  workDirectory: string;
  workers?: number;
}): Promise<{ codes: Map<string, string[]>; durationMs: number }> {
  const schema = path.join(options.workDirectory, 'faults.openapi.json');
  writeFileSync(schema, JSON.stringify(documentUnderFaultPrefixes(options.document, options.operationIdsByFault)));
  const run = await runSchemathesis({
    baseUrl: options.routerUrl,
    workDirectory: path.join(options.workDirectory, 'schemathesis'),
    schema,
    maxExamples: EXAMPLES_PER_PHASE,
    extraArguments: [
      '--continue-on-failure',
      // The injector forwards every method as a GET (fetch cannot send TRACE), so a 405 never comes back through it.
      '--exclude-checks',
      'unsupported_method',
      '--phases',
      'examples,coverage,fuzzing',
      '--workers',
      String(options.workers ?? 1),
    ],
  });
  if (run.exitCode > 1) throw new Error(`Schemathesis could not run (exit ${run.exitCode}):\n${run.output.slice(-3000)}`);
  const codes = new Map<string, string[]>();
  for (const finding of run.findings) {
    const fault = new RegExp(`^\\S+ ${FAULT_PREFIX}([^/]+)/`).exec(finding.operation)?.[1] ?? finding.operation;
    codes.set(fault, codesIn([...(codes.get(fault) ?? []), ...finding.codes].join(' ')));
  }
  return { codes, durationMs: run.durationMs };
}
