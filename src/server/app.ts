import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import { type ConversationCatalog, EMPTY_CATALOG } from '../catalog';
import { type OpenApiDocument, type OperationId, loadOpenApiDocument } from '../contract';
import { attachEventSockets, createEventSockets } from '../live/event-sockets';
import type { SocketLimits } from '../live/socket-subscription';
import type { Logger } from '../log';
import type { EventStore } from '../store/event-store';
import { docsPage } from './docs-page';
import { storedEventCountsBody } from '../store/stored-event/counts';
import { HttpError, errorHandler } from './errors';
import { operationHandlers } from './handlers';
import { type OperationRoute, type RouteTable, operationRoutes } from './operation-routes';
import type { OperationHandlers } from './operations';
import { parseRequestValues, parsedValues, rejectUnparsedValues } from './parsed-values';
import { cutFragment, inSequence, matchedRequest, normalizeQuery, openApiValidator } from './request-validation';
import { parseRequestBody, requestBodyOf } from './request-body';
import { sendResult } from './send-result';
import { serverInfoSource } from './server-info';
import { requireSessionKey } from './session-keys';
import { viewerAssets } from './viewer-assets';

export interface AppOptions {
  store: EventStore;
  /** The conversations catalog and trajectory files; without one, the catalog is empty. */
  catalog?: ConversationCatalog;
  logger: Logger;
  /** Check every response against the contract: on in tests, off by default (it costs time per page). */
  validateResponses?: boolean;
  /** When any is given, every `/api` request must carry one in `X-Session-API-Key`. */
  sessionApiKeys?: readonly string[];
  /** Limits of the events socket; tests shorten them. */
  socketLimits?: SocketLimits;
  /** Where the built events viewer is (`npm run build:viewer`); dist/viewer by default. */
  viewerDirectory?: string;
}

/**
 * The HTTP application: every operation of the contract, routed and validated from
 * openapi.yaml, plus `/alive`, `/health`, `/server_info`, `/openapi.json`, `/docs` and the events viewer at `/`,
 * and the events socket, which `listen` serves beside it. It does not listen; the caller
 * does (see src/cli/start.ts).
 */
export function createApp({
  store,
  catalog = EMPTY_CATALOG,
  logger,
  validateResponses = false,
  sessionApiKeys = [],
  viewerDirectory,
  socketLimits,
}: AppOptions): Express {
  const document = loadOpenApiDocument();
  const app = express();
  app.disable('x-powered-by');
  // An ETag would hash every page body; clients of this API page forward and do not revalidate.
  app.set('etag', false);
  // Paths are case-sensitive, as in the reference (Starlette). Express matches routes
  // case-insensitively by default, so `/API/...` reached the search route while the
  // validator, which only looks at `/api/`, let it through unvalidated.
  app.set('case sensitive routing', true);
  const routed = app as Express & { handle(req: IncomingMessage, res: ServerResponse, next?: () => void): void };
  const handle = routed.handle.bind(app);
  routed.handle = (req, res, next) => {
    cutFragment(req);
    handle(req, res, next);
  };
  const serverInfo = serverInfoSource();
  app.use((_req, _res, next) => {
    serverInfo.served();
    next();
  });
  app.use(operationRequests(operationRoutes(document), store, catalog, { document, validateResponses, sessionApiKeys }));

  app.get('/server_info', (_req, res) => {
    res.json(serverInfo.info());
  });
  app.get('/alive', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/health', (_req, res) => {
    const health = store.health();
    res.json({
      status: 'ok',
      conversations_loaded: health.conversationsLoaded,
      events_loaded: health.eventsLoaded,
      events_skipped_invalid: health.eventsSkipped,
      stored_events: storedEventCountsBody(health.storedEvents),
      bytes_held: health.bytesHeld,
      memory_budget_bytes: health.memoryBudgetBytes,
      conversations_dropped: health.conversationsDropped,
      decode_worker_bytes: health.decodeWorkerBytes,
    });
  });
  app.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use('/docs', docsPage(document, { sessionKeyRequired: sessionApiKeys.length > 0 }));
  app.use(viewerAssets(viewerDirectory));

  app.use(() => {
    throw new HttpError(404, { detail: 'Not Found' });
  });
  app.use(errorHandler(logger));
  attachEventSockets(app, createEventSockets({ feed: store.feed, catalog, sessionApiKeys, logger, limits: socketLimits }));
  return app;
}

/** A handler as the dispatch sees it: the types that tie input and result to one operation are the compiler's business. */
type RoutedHandler = (input: never) => Promise<{ status: number; body: unknown }>;

function handlerFor(handlers: OperationHandlers, route: OperationRoute): RoutedHandler {
  const handler: RoutedHandler | undefined = handlers[route.operationId as OperationId];
  // The compiler sees the generated types; this guards a generated/openapi.json that drifted from them.
  if (!handler) throw new Error(`No handler for operation ${route.operationId} (${route.method} ${route.template}): run npm run generate`);
  return handler;
}

/**
 * Every request under /api, in one middleware: the session key, the query normalisation,
 * the validator and the operation's handler run one after another, without the router's
 * walk over the other routes and its own matching of the path (the validator has matched
 * it and set `req.params`). A path no operation has falls through to the 404.
 * /alive, /health, /openapi.json and /docs stay open: they hold no conversation data.
 */
function operationRequests(
  table: RouteTable,
  store: EventStore,
  catalog: ConversationCatalog,
  options: { document: OpenApiDocument; validateResponses: boolean; sessionApiKeys: readonly string[] },
): express.RequestHandler {
  const handlers = operationHandlers(store, catalog);
  const routed = new Map(table.routes.map((route) => [route, handlerFor(handlers, route)]));
  const endpoint: express.RequestHandler = (req, res, next) => {
    const matched = matchedRequest(req);
    const handler = matched && routed.get(matched.route);
    if (!handler) return next();
    handler({ path: req.params, query: req.query, parsed: parsedValues(req), body: requestBodyOf(req) } as never)
      .then((result) => sendResult(res, result, options.validateResponses))
      .catch(next);
  };
  const api = inSequence([
    ...(options.sessionApiKeys.length > 0 ? [requireSessionKey(options.sessionApiKeys)] : []),
    normalizeQuery(table),
    parseRequestValues(),
    parseRequestBody(),
    openApiValidator(options.document, options.validateResponses),
    rejectUnparsedValues(),
    endpoint,
  ]);
  // The contract's few paths outside /api (the readiness probe) take no input and need no key, as in the reference.
  const open = inSequence([normalizeQuery(table), endpoint]);
  return (req, res, next) => {
    if (req.path === '/api' || req.path.startsWith('/api/')) return api(req, res, next);
    if (table.match(req.method, req.path)) return open(req, res, next);
    // As FastAPI answers another method on a path it has, with the methods it has (RFC 9110 requires `Allow`).
    if (req.method !== 'GET' && req.method !== 'HEAD' && table.match('GET', req.path))
      return next(new HttpError(405, { detail: 'Method Not Allowed' }, { Allow: 'GET' }));
    next();
  };
}
