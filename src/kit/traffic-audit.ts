/**
 * Judges every response of the run as it arrives, whichever check caused it: each 200,
 * 404 and 422 body against the schema the contract declares for that status, and any 5xx
 * as a fault (seed section 7 names no 5xx). The audit checks report what it saw.
 */
import { slim, type Exchange } from './http';
import type { ResponseValidator } from './schema-validator';

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
}

/** Only the first few offenders are kept; the counts stay exact. */
const KEPT_PER_KIND = 20;

export function createTrafficAudit(validator: ResponseValidator): TrafficAudit {
  const validatedByStatus = new Map<number, number>();
  const schemaViolations: SchemaViolation[] = [];
  const serverErrors: Exchange[] = [];
  return {
    observe(exchange) {
      if (exchange.status >= 500) {
        if (serverErrors.length < KEPT_PER_KIND) serverErrors.push(slim(exchange));
        return;
      }
      if (!validator.statuses.includes(exchange.status)) return;
      validatedByStatus.set(exchange.status, (validatedByStatus.get(exchange.status) ?? 0) + 1);
      const verdict = exchange.json.ok
        ? validator.validate(exchange.status, exchange.json.value)
        : { valid: false as const, errors: [`body is not JSON: ${exchange.json.error}`] };
      if (verdict.valid === false && schemaViolations.length < KEPT_PER_KIND) schemaViolations.push({ exchange: slim(exchange), errors: verdict.errors });
    },
    validatedByStatus,
    schemaViolations,
    serverErrors,
  };
}
