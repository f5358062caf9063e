/**
 * What a run (or a proxy session) covered of the contract: per operation, the declared
 * statuses seen and not seen, the parameters exercised and not, and the event kinds met
 * in responses. What was never exercised is listed, so a green run says what it did not prove.
 */
import { eventKindNames, statusCovers, type OperationTable } from '../contract';

export interface OperationCoverage {
  operationId: string;
  method: string;
  path: string;
  requests: number;
  statusesSeen: string[];
  statusesNotSeen: string[];
  /** Statuses answered that the operation does not declare. */
  undeclaredStatuses: number[];
  parametersExercised: string[];
  parametersNotExercised: string[];
  /** Only for operations whose success answer carries events. */
  kindsSeen?: string[];
  kindsNotSeen?: string[];
}

export interface Coverage {
  operations: OperationCoverage[];
  /** Requests that matched no operation of the contract. */
  unmatchedRequests: number;
}

export interface CoverageRecorder {
  /** `target` is the path and query as sent, relative to the server's base. */
  record(method: string, target: string, status: number, body: unknown): void;
  summary(): Coverage;
}

interface Tally {
  requests: number;
  statuses: Set<number>;
  parameters: Set<string>;
  kinds: Set<string>;
}

const EVENT_SCHEMA_REF = /"#\/components\/schemas\/Event(?:Page)?"/;

export function createCoverageRecorder(table: OperationTable): CoverageRecorder {
  const { operations } = table;
  const allKinds = eventKindNames(table.document);
  const tallies = new Map<string, Tally>(
    operations.map((operation) => [operation.operationId, { requests: 0, statuses: new Set(), parameters: new Set(), kinds: new Set() }]),
  );
  let unmatched = 0;
  return {
    record(method, target, status, body) {
      const url = new URL(target, 'http://coverage.invalid');
      const match = table.match(method, url.pathname);
      if (!match) {
        unmatched += 1;
        return;
      }
      const tally = tallies.get(match.operation.operationId)!;
      tally.requests += 1;
      tally.statuses.add(status);
      for (const name of Object.keys(match.pathParameters)) tally.parameters.add(name);
      for (const name of url.searchParams.keys()) tally.parameters.add(name);
      if (status >= 200 && status < 300) for (const kind of kindsIn(body)) tally.kinds.add(kind);
    },
    summary() {
      return {
        unmatchedRequests: unmatched,
        operations: operations.map((operation) => {
          const tally = tallies.get(operation.operationId)!;
          const declared = operation.parameters.map((parameter) => parameter.name);
          const seen = operation.statuses.filter((declaredStatus) => [...tally.statuses].some((status) => statusCovers(declaredStatus, status)));
          const returnsEvents = EVENT_SCHEMA_REF.test(JSON.stringify([...operation.responseSchemas.entries()].filter(([status]) => status < 300)));
          return {
            operationId: operation.operationId,
            method: operation.method,
            path: operation.template,
            requests: tally.requests,
            statusesSeen: seen,
            statusesNotSeen: operation.statuses.filter((status) => !seen.includes(status)),
            undeclaredStatuses: [...tally.statuses]
              .filter((status) => !operation.statuses.some((declaredStatus) => statusCovers(declaredStatus, status)))
              .sort(),
            parametersExercised: declared.filter((name) => tally.parameters.has(name)),
            parametersNotExercised: declared.filter((name) => !tally.parameters.has(name)),
            ...(returnsEvents
              ? { kindsSeen: allKinds.filter((kind) => tally.kinds.has(kind)), kindsNotSeen: allKinds.filter((kind) => !tally.kinds.has(kind)) }
              : {}),
          };
        }),
      };
    },
  };
}

function kindsIn(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const items = (body as { items?: unknown }).items;
  const events = Array.isArray(items) ? items : [body];
  return events.flatMap((event) => {
    const kind = (event as { kind?: unknown } | null)?.kind;
    return typeof kind === 'string' ? [kind] : [];
  });
}

/** The coverage as text lines, for the kit's report and the proxy's summary. */
export function coverageLines(coverage: Coverage): string[] {
  const lines = ['Coverage of the contract:'];
  for (const operation of coverage.operations) {
    lines.push(`  ${operation.operationId} (${operation.method} ${operation.path}): ${operation.requests} requests`);
    lines.push(`    statuses seen: ${listOrNone(operation.statusesSeen)}; not seen: ${listOrNone(operation.statusesNotSeen)}`);
    if (operation.undeclaredStatuses.length > 0) lines.push(`    undeclared statuses answered: ${operation.undeclaredStatuses.join(', ')}`);
    lines.push(
      `    parameters exercised: ${listOrNone(operation.parametersExercised)}; not exercised: ${listOrNone(operation.parametersNotExercised)}`,
    );
    if (operation.kindsSeen)
      lines.push(`    event kinds met: ${listOrNone(operation.kindsSeen)}; never met: ${listOrNone(operation.kindsNotSeen ?? [])}`);
  }
  if (coverage.unmatchedRequests > 0) lines.push(`  ${coverage.unmatchedRequests} requests matched no operation of the contract`);
  return lines;
}

function listOrNone(values: readonly string[]): string {
  return values.length > 0 ? values.join(', ') : 'none';
}
