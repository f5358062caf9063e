/**
 * The operations openapi.yaml declares, as the kit and the proxy need them: which
 * operation a request path is, its parameters, and the statuses it declares. Literal
 * paths are tried before templated ones (`/events/count` before `/events/{event_id}`),
 * as OpenAPI asks.
 */
import type { OpenApiDocument } from '../contract';

export interface ContractParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
}

export interface ContractOperation {
  operationId: string;
  method: string;
  pathTemplate: string;
  parameters: ContractParameter[];
  /** Declared statuses (`200`, `404`, ...) in document order; `default` and ranges kept as written. */
  statuses: string[];
  /** The JSON schema declared for each numeric status, when there is one. */
  responseSchemas: Map<number, Record<string, unknown>>;
}

export interface OperationMatch {
  operation: ContractOperation;
  pathParameters: Record<string, string>;
}

interface RawOperation {
  operationId?: string;
  parameters?: { name: string; in: ContractParameter['in']; required?: boolean }[];
  responses?: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function contractOperations(document: OpenApiDocument): ContractOperation[] {
  const operations: ContractOperation[] = [];
  for (const [pathTemplate, item] of Object.entries(document.paths)) {
    const shared = (item as { parameters?: RawOperation['parameters'] }).parameters ?? [];
    for (const method of METHODS) {
      const raw = item[method] as RawOperation | undefined;
      if (!raw) continue;
      const responses = raw.responses ?? {};
      const responseSchemas = new Map<number, Record<string, unknown>>();
      for (const [status, response] of Object.entries(responses)) {
        const schema = response.content?.['application/json']?.schema;
        if (schema && /^\d{3}$/.test(status)) responseSchemas.set(Number(status), schema);
      }
      operations.push({
        operationId: raw.operationId ?? `${method.toUpperCase()} ${pathTemplate}`,
        method: method.toUpperCase(),
        pathTemplate,
        parameters: [...shared, ...(raw.parameters ?? [])].map((parameter) => ({
          name: parameter.name,
          in: parameter.in,
          required: parameter.required === true,
        })),
        statuses: Object.keys(responses),
        responseSchemas,
      });
    }
  }
  // Fewer templated segments first; among equals, the one whose first template comes later.
  return operations.sort(
    (a, b) => templateCount(a.pathTemplate) - templateCount(b.pathTemplate) || firstTemplateAt(b.pathTemplate) - firstTemplateAt(a.pathTemplate),
  );
}

function templateCount(template: string): number {
  return (template.match(/\{[^}]+\}/g) ?? []).length;
}

function firstTemplateAt(template: string): number {
  const at = template.split('/').findIndex((segment) => segment.startsWith('{'));
  return at < 0 ? Number.MAX_SAFE_INTEGER : at;
}

/** The operation a method and path (no query) are, with the path parameters decoded; undefined when none. */
export function matchOperation(operations: readonly ContractOperation[], method: string, pathname: string): OperationMatch | undefined {
  const segments = pathname.split('/');
  for (const operation of operations) {
    if (operation.method !== method.toUpperCase()) continue;
    const template = operation.pathTemplate.split('/');
    if (template.length !== segments.length) continue;
    const pathParameters: Record<string, string> = {};
    const matches = template.every((part, index) => {
      const segment = segments[index]!;
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name === undefined) return part === segment;
      if (segment === '') return false;
      pathParameters[name] = safeDecode(segment);
      return true;
    });
    if (matches) return { operation, pathParameters };
  }
  return undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Whether a status is declared for an operation, directly, by range (`4XX`) or by `default`. */
export function declaresStatus(operation: ContractOperation, status: number): boolean {
  return operation.statuses.some((declared) => statusCovers(declared, status));
}

/** Whether one declared status key (`404`, `4XX`, `default`) covers a status. */
export function statusCovers(declared: string, status: number): boolean {
  const text = String(status);
  return declared === text || declared.toUpperCase() === `${text[0]}XX` || declared === 'default';
}
