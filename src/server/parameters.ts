import type { ContractParameter } from '../contract';

/** A parameter of an operation as the contract declares it, `$ref`s resolved (by the operation table). */
export type ParameterSpec = ContractParameter;

export function isIntegerParameter(parameter: ParameterSpec): boolean {
  return parameter.schema.type === 'integer';
}
