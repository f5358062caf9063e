import express, { type Express, type RequestHandler, type Router } from 'express';
import { type OpenApiDocument, loadOpenApiDocument } from '../contract';
import type { Logger } from '../log';
import type { EventStore } from '../store/event-store';
import { HttpError, errorHandler } from './errors';
import { searchParameters } from './parameters';
import { dropFragment, normalizeQuery, openApiValidator } from './request-validation';
import { searchRoute } from './search-route';
import { requireSessionKey } from './session-keys';

export interface AppOptions {
  store: EventStore;
  logger: Logger;
  /** Check every response against the contract: on in tests, off by default (it costs time per page). */
  validateResponses?: boolean;
  /** When any is given, every `/api` request must carry one in `X-Session-API-Key`. */
  sessionApiKeys?: readonly string[];
  /**
   * Answers the search operation once its request has passed validation; by default the
   * search over `store`. The benchmark's framework floor passes one that sends precomputed
   * bytes, to measure this application without the store and the search.
   */
  searchHandler?: RequestHandler;
}

/**
 * The HTTP application: the contract's search operation, validated from openapi.yaml,
 * plus `/alive`, `/health`, `/openapi.json` and `/docs`. It does not listen; the
 * caller does (see src/cli/start.ts).
 */
export function createApp({ store, logger, validateResponses = false, sessionApiKeys = [], searchHandler }: AppOptions): Express {
  const document = loadOpenApiDocument();
  const parameters = searchParameters(document);
  const app = express();
  app.disable('x-powered-by');
  // An ETag would hash every page body; clients of this API page forward and do not revalidate.
  app.set('etag', false);
  // Paths are case-sensitive, as in the reference (Starlette). Express matches routes
  // case-insensitively by default, so `/API/...` reached the search route while the
  // validator, which only looks at `/api/`, let it through unvalidated.
  app.set('case sensitive routing', true);
  app.use(dropFragment());

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
      bytes_held: health.bytesHeld,
      memory_budget_bytes: health.memoryBudgetBytes,
      conversations_dropped: health.conversationsDropped,
    });
  });
  app.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use('/docs', docsPage(document));

  // /alive, /health, /openapi.json and /docs stay open: they hold no conversation data.
  if (sessionApiKeys.length > 0) app.use('/api', requireSessionKey(sessionApiKeys));
  app.use('/api', normalizeQuery(parameters));
  app.use(openApiValidator(document, validateResponses));
  app.get('/api/conversations/:conversation_id/events/search', searchHandler ?? searchRoute(store, { validateResponses }));

  app.use(() => {
    throw new HttpError(404, { detail: 'Not Found' });
  });
  app.use(errorHandler(parameters, logger));
  return app;
}

/**
 * The interactive docs page, built from the contract. swagger-ui-express costs about
 * 15 MiB and 60 ms at start-up, so it is loaded on the first visit.
 */
function docsPage(document: OpenApiDocument): RequestHandler {
  let router: Router | undefined;
  return (req, res, next) => {
    if (!router) {
      const swaggerUi = require('swagger-ui-express') as typeof import('swagger-ui-express');
      router = express.Router().use(swaggerUi.serve, swaggerUi.setup(document as object, { customSiteTitle: 'Agent Server' }));
    }
    router(req, res, next);
  };
}
