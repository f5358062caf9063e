/**
 * Judges every response of the run as it arrives, whichever check caused it: each body
 * against the schema the contract declares for that operation and status, and any 5xx
 * as a fault (seed section 7 names no 5xx). It also records the run's coverage of the
 * contract. The audit checks report what it saw.
 */
import { declaresStatus, type OperationTable } from '../../contract';
import { answersUnknownRoute, cameAsOtherThanJson, contentTypeViolation } from '../exchange-judge';
import { createCoverageRecorder, type CoverageRecorder } from '../coverage';
import { slim, type Exchange } from '../http';
import type { ResponseValidator } from '../schema-validator';

export interface SchemaViolation {
  exchange: Exchange;
  errors: string[];
}

export interface TrafficAudit {
  observe(exchange: Exchange): void;
  /** Responses judged against a schema, by status. */
  readonly validatedByStatus: ReadonlyMap<number, number>;
  readonly schemaViolations: readonly SchemaViolation[];
  readonly serverErrors: readonly Exchange[];
  /** Answers of an operation with a status it does not declare, or a content type it does not declare for that status. */
  readonly undeclaredAnswers: readonly SchemaViolation[];
  readonly coverage: CoverageRecorder;
}

/** Only the first few offenders are kept; the counts stay exact. */
const KEPT_PER_KIND = 20;

export function createTrafficAudit(validator: ResponseValidator, table: OperationTable): TrafficAudit {
  const coverage = createCoverageRecorder(table);
  const validatedByStatus = new Map<number, number>();
  const schemaViolations: SchemaViolation[] = [];
  const serverErrors: Exchange[] = [];
  const undeclaredAnswers: SchemaViolation[] = [];
  return {
    observe(exchange) {
      coverage.record(exchange.method, exchange.path, exchange.status, exchange.json.ok ? exchange.json.value : undefined);
      if (exchange.status >= 500) {
        if (serverErrors.length < KEPT_PER_KIND) serverErrors.push(slim(exchange));
        return;
      }
      const match = table.match(exchange.method, new URL(exchange.path, 'http://audit.invalid').pathname);
      // An operation the server does not have at all is the operations layer's finding ("not implemented").
      if (match && !(answersUnknownRoute(exchange) && !declaresStatus(match.operation, 404))) {
        const { operation } = match;
        const problems = [
          ...(declaresStatus(operation, exchange.status)
            ? []
            : [`status ${exchange.status} is not declared for ${operation.operationId} (declared: ${operation.statuses.join(', ')})`]),
          ...[contentTypeViolation(operation, exchange)].filter((problem): problem is string => problem !== undefined),
        ];
        if (problems.length > 0 && undeclaredAnswers.length < KEPT_PER_KIND) undeclaredAnswers.push({ exchange: slim(exchange), errors: problems });
      }
      if (!match || cameAsOtherThanJson(exchange.contentType) || !validator.statusesOf(match.operation.operationId).includes(exchange.status)) return;
      validatedByStatus.set(exchange.status, (validatedByStatus.get(exchange.status) ?? 0) + 1);
      const verdict = exchange.json.ok
        ? validator.validate(match.operation.operationId, exchange.status, exchange.json.value)
        : { valid: false as const, errors: [`body is not JSON: ${exchange.json.error}`] };
      if (verdict.valid === false && schemaViolations.length < KEPT_PER_KIND)
        schemaViolations.push({ exchange: slim(exchange), errors: verdict.errors });
    },
    validatedByStatus,
    schemaViolations,
    serverErrors,
    undeclaredAnswers,
    coverage,
  };
}
