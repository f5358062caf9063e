/**
 * `--changed-since OLD`: the operations of the contract that `diff OLD NEW` reports a change
 * in (a parameter, a response, a schema they use, or the operation itself added), so a CI run
 * on a contract edit exercises what the edit touches.
 */
import type { OpenApiDocument, OperationTable } from '../../contract';
import { diffContracts } from './contract-diff';

/** operationIds of `table` (the new contract) that a change between `before` and it concerns. */
export function changedOperationIds(before: OpenApiDocument, table: OperationTable): string[] {
  const changes = diffContracts(before, table.document);
  return table.operations
    .filter((operation) => {
      const key = `${operation.method} ${operation.template}`;
      return changes.some((change) => change.where === key || change.where.startsWith(`${key} `));
    })
    .map((operation) => operation.operationId);
}
