import express, { type RequestHandler, type Router } from 'express';
import type { OpenApiDocument } from '../contract';

/**
 * The interactive docs page, built from the contract. swagger-ui-express costs about
 * 15 MiB and 60 ms at start-up, so it is loaded on the first visit.
 */
export function docsPage(document: OpenApiDocument): RequestHandler {
  let router: Router | undefined;
  return (req, res, next) => {
    if (!router) {
      const swaggerUi = require('swagger-ui-express') as typeof import('swagger-ui-express');
      router = express.Router().use(swaggerUi.serve, swaggerUi.setup(document as object, { customSiteTitle: 'Agent Server' }));
    }
    router(req, res, next);
  };
}
