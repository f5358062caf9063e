/**
 * The contract's operations as routes, read from the document's `paths`: what Express
 * registers, what the query normalisation and the 422 mapping look up for a request, and
 * what the validator is handed, all from one list.
 */
import type { OperationId, OpenApiDocument } from '../contract';
import { type ParameterSpec, resolveParameters } from './parameters';

export interface OperationRoute {
  operationId: OperationId;
  /** Lower-case HTTP method, as Express names its route methods. */
  method: 'get';
  /** The path as the contract writes it, `/api/conversations/{conversation_id}/...`. */
  template: string;
  /** The same path in Express's syntax, `/api/conversations/:conversation_id/...`. */
  expressPath: string;
  /** The operation's parameters in declaration order, `$ref`s resolved. */
  parameters: ParameterSpec[];
  /** Matches a request path; its groups are the path parameters' raw segments, in `pathParameterNames` order. */
  pattern: RegExp;
  pathParameterNames: string[];
}

const METHODS = ['get'] as const;

/**
 * Every operation of the document, literal paths before templated ones (OpenAPI: "when
 * matching URLs, concrete paths are matched before their templated counterparts"), so that
 * `/events/search` is never taken for `/events/{event_id}`.
 */
export function operationRoutes(document: OpenApiDocument): OperationRoute[] {
  const routes: OperationRoute[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as { operationId?: string; parameters?: unknown } | undefined;
      if (!operation) continue;
      if (!operation.operationId) throw new Error(`openapi.yaml: ${method.toUpperCase()} ${template} has no operationId`);
      routes.push({
        operationId: operation.operationId as OperationId,
        method,
        template,
        expressPath: template.replace(/\{([^}]+)\}/g, ':$1'),
        parameters: resolveParameters(document, operation),
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)')}/?$`),
        pathParameterNames: [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? ''),
      });
    }
  }
  return routes.sort((a, b) => compareSpecificity(a.template, b.template));
}

/** Segment by segment, a literal segment before a templated one; otherwise the document's order. */
function compareSpecificity(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const aTemplated = as[i]!.startsWith('{');
    const bTemplated = bs[i]!.startsWith('{');
    if (aTemplated !== bTemplated) return aTemplated ? 1 : -1;
  }
  return 0;
}

/** The route a request is for, matched the way Express will route it. */
export function matchRoute(
  routes: readonly OperationRoute[],
  method: string,
  path: string,
): { route: OperationRoute; segments: string[] } | undefined {
  const lowerMethod = method.toLowerCase();
  for (const route of routes) {
    if (route.method !== lowerMethod) continue;
    const match = route.pattern.exec(path);
    if (match) return { route, segments: match.slice(1) };
  }
  return undefined;
}
