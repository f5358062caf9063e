import type { OpenApiDocument } from '../contract';

/** A parameter of an operation as the contract declares it. */
export interface ParameterSpec {
  name: string;
  in: 'path' | 'query';
  schema: ParameterSchema;
  allowReserved?: boolean;
  allowEmptyValue?: boolean;
  required?: boolean;
}

export interface ParameterSchema {
  type?: string | string[];
  format?: string;
  enum?: string[];
  exclusiveMinimum?: number;
  maximum?: number;
  default?: unknown;
  $ref?: string;
  /** For a list parameter (`ids=a&ids=b`): its items' schema and how many it may have. */
  items?: ParameterSchema;
  maxItems?: number;
}

/**
 * An operation's parameters in declaration order, `$ref`s resolved, read from the contract
 * so that bounds, enums and formats have one source.
 */
export function resolveParameters(document: OpenApiDocument, operation: { parameters?: unknown }): ParameterSpec[] {
  const parameters = (operation.parameters ?? []) as ParameterSpec[];
  return parameters.map((parameter) => ({ ...parameter, schema: resolveSchema(document, parameter.schema) }));
}

function resolveSchema(document: OpenApiDocument, schema: ParameterSchema): ParameterSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  return { ...(document.components.schemas[name] as ParameterSchema), ...schema, $ref: undefined };
}

export function isIntegerParameter(parameter: ParameterSpec): boolean {
  return parameter.schema.type === 'integer';
}
