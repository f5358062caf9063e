/**
 * The contract's operations as the server routes them: the operation table of src/contract
 * (compiled once from the document's `paths`, literal segments before templated ones), with
 * the one thing the server adds: every operation must have an operationId, since that is
 * what names its handler. The query normalisation matches a request here once and hands the
 * match down to the validator's settings, the handler and the 422 mapping.
 */
import { type ContractOperation, type OpenApiDocument, type OperationId, type OperationTable, operationTable } from '../contract';

export interface OperationRoute extends ContractOperation {
  operationId: OperationId;
}

export interface RouteTable {
  /** Every operation, in matching order. */
  routes: readonly OperationRoute[];
  /** The route a request is for, with its path parameters' raw segments; undefined when none. */
  match(method: string, path: string): { route: OperationRoute; segments: string[] } | undefined;
}

export function operationRoutes(document: OpenApiDocument): RouteTable {
  const table: OperationTable = operationTable(document);
  for (const operation of table.operations) {
    if (!operation.hasOperationId) throw new Error(`openapi.yaml: ${operation.method} ${operation.template} has no operationId`);
  }
  return {
    routes: table.operations as readonly OperationRoute[],
    match(method, path) {
      const matched = table.match(method, path);
      return matched && { route: matched.operation as OperationRoute, segments: matched.segments };
    },
  };
}
