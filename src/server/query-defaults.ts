/**
 * The defaults of query parameters, as openapi.yaml states them. The validator fills them in
 * before a handler runs; a handler that still needs one for its types reads it here, so that
 * an edit of a default in the contract is the only edit there is.
 */
import { type OperationId, loadOpenApiDocument, operationTable, type operations } from '../contract';

type QueryOf<Op extends OperationId> = NonNullable<operations[Op]['parameters']['query']>;

/** The contract's default for one query parameter of one operation; a contract that gives none is a bug here, said at once. */
export function queryDefault<Op extends OperationId, Name extends keyof QueryOf<Op> & string>(
  operationId: Op,
  name: Name,
): NonNullable<QueryOf<Op>[Name]> {
  const key = `${operationId} ${name}`;
  if (!defaults.has(key)) {
    const parameter = operationTable(loadOpenApiDocument())
      .byId(operationId)
      ?.parameters.find((candidate) => candidate.in === 'query' && candidate.name === name);
    if (parameter?.schema.default === undefined) throw new Error(`openapi.yaml gives ${operationId}'s query parameter ${name} no default`);
    defaults.set(key, parameter.schema.default);
  }
  return defaults.get(key) as NonNullable<QueryOf<Op>[Name]>;
}

const defaults = new Map<string, unknown>();
