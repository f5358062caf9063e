/**
 * The "Injected faults" table of docs/contract-kit.md, whose Schemathesis column the tests that
 * inject the faults measure, and the one short Schemathesis run each fault gets.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runSchemathesis } from '../../dev/schemathesis/run-schemathesis';

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
 * The codes of every finding of one run of Schemathesis (dev/schemathesis/schemathesis.toml, a few
 * examples per phase) against a server behind the fault injector, on the operations a fault breaks.
 */
export async function schemathesisCodes(options: {
  baseUrl: string;
  operationIds: readonly string[];
  workDirectory: string;
  /** openapi.yaml unless given. */
  schema?: string;
}): Promise<string[]> {
  const run = await runSchemathesis({
    baseUrl: options.baseUrl,
    workDirectory: options.workDirectory,
    schema: options.schema,
    maxExamples: EXAMPLES_PER_PHASE,
    extraArguments: [
      // Schemathesis ORs its include filters.
      ...options.operationIds.flatMap((operationId) => ['--include-operation-id', operationId]),
      '--continue-on-failure',
      // The injector forwards every method as a GET (fetch cannot send TRACE), so a 405 never comes back through it.
      '--exclude-checks',
      'unsupported_method',
    ],
  });
  if (run.exitCode > 1) throw new Error(`Schemathesis could not run against ${options.baseUrl} (exit ${run.exitCode}):\n${run.output.slice(-3000)}`);
  return codesIn(run.findings.flatMap((finding) => finding.codes).join(' '));
}
