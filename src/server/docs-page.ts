import express, { type RequestHandler, type Router } from 'express';
import type { OpenApiDocument } from '../contract';

export interface DocsPageOptions {
  /** The server requires `X-Session-API-Key` on /api: the page offers a field for it. */
  readonly sessionKeyRequired: boolean;
}

/** Header the session keys travel in (see session-keys.ts). */
const SESSION_KEY_HEADER = 'X-Session-API-Key';
const SESSION_KEY_SCHEME = 'SessionApiKey';

/**
 * The interactive docs page, built from the contract. swagger-ui-express adds memory and
 * time to a start-up that mostly never needs it, so it is loaded on the first visit. The page's "Try it
 * out" must reach this server however it was reached, so the copy of the contract the page
 * gets is adjusted (see docsDocument) and a script points the page at its own address.
 */
export function docsPage(document: OpenApiDocument, options: DocsPageOptions): RequestHandler {
  let router: Router | undefined;
  return (req, res, next) => {
    // The page loads its scripts relative to itself, which needs the trailing slash. The
    // redirect is relative so that a path prefix added by a proxy is kept.
    const [target = '', query] = req.originalUrl.split('?', 2);
    if (req.path === '/' && !target.endsWith('/')) {
      res.redirect(301, `${req.baseUrl.split('/').pop()}/${query === undefined ? '' : `?${query}`}`);
      return;
    }
    if (!router) {
      const swaggerUi = require('swagger-ui-express') as typeof import('swagger-ui-express');
      // customJsStr is an option of swagger-ui-express 5 that its type declarations lack.
      const pageOptions = { customSiteTitle: 'Agent Server', customJsStr: SEND_TO_THIS_SERVER };
      router = express.Router().use(swaggerUi.serve, swaggerUi.setup(docsDocument(document, options) as object, pageOptions));
    }
    router(req, res, next);
  };
}

/**
 * The contract as the docs page shows it. Only this copy changes; /openapi.json serves the
 * contract as written.
 * - No fixed `servers`: the page sets its own address (SEND_TO_THIS_SERVER).
 * - Path parameters declared `format: uuid` lose the format: Swagger UI checks it with a
 *   hyphenated-only pattern and would refuse the 32-digit hex form that this server (like
 *   the reference) accepts and prints in its start line. Examples show both forms.
 * - With session keys on, a header scheme lets the reader enter a key ("Authorize"); the
 *   contract itself declares no security scheme, as the reference's does not.
 */
export function docsDocument(document: OpenApiDocument, options: DocsPageOptions): OpenApiDocument {
  const copy = structuredClone(document);
  delete copy['servers'];
  for (const pathItem of Object.values(copy.paths)) {
    for (const operation of Object.values(pathItem)) {
      const parameters = (operation as { parameters?: DocsParameter[] }).parameters ?? [];
      for (const parameter of parameters) relaxUuidFormat(parameter);
    }
  }
  if (options.sessionKeyRequired) {
    (copy.components as Record<string, unknown>)['securitySchemes'] = {
      [SESSION_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: SESSION_KEY_HEADER, description: 'One of the keys the server was started with.' },
    };
    copy['security'] = [{ [SESSION_KEY_SCHEME]: [] }];
  }
  return copy;
}

interface DocsParameter {
  in?: string;
  schema?: { format?: string };
  examples?: Record<string, { summary: string; value: string }>;
}

function relaxUuidFormat(parameter: DocsParameter): void {
  if (parameter.in !== 'path' || parameter.schema?.format !== 'uuid') return;
  delete parameter.schema.format;
  parameter.examples = {
    hex: { summary: '32 hex digits, as the start line prints', value: '0123456789abcdef0123456789abcdef' },
    hyphenated: { summary: 'hyphenated UUID', value: '01234567-89ab-cdef-0123-456789abcdef' },
  };
}

/**
 * Runs in the page before Swagger UI starts: sends "Try it out" to the address the page
 * was opened from, with any path prefix before `/docs` kept (a proxy's, for instance).
 */
const SEND_TO_THIS_SERVER = `(function () {
  var build = window.SwaggerUIBundle;
  var base = window.location.origin + window.location.pathname.replace(/\\/docs(\\/[^/]*)?$/, '');
  window.SwaggerUIBundle = Object.assign(function (config) {
    if (config.spec) config.spec.servers = [{ url: base, description: 'this server' }];
    return build(config);
  }, build);
})();`;
