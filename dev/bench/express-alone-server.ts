/**
 * Express alone: a bare Express application (the same settings as ours: no ETag, no
 * X-Powered-By) with the search route and nothing else, answering the precomputed bytes.
 * Beside the baseline and the framework floor it splits what the framework costs between
 * Express itself and the request validation with our error path. Started like the baseline
 * (precomputed-server.ts).
 */
import express from 'express';
import { listen } from '../../src/server/listen';
import { receiveRoutes, reportListening } from './precomputed-server';

receiveRoutes(async (routes) => {
  const byPath = new Map(routes.map((route) => [route.path, route]));
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/api/conversations/:conversation_id/events/search', (req, res) => {
    const route = byPath.get(req.originalUrl);
    if (!route) {
      res.status(404).end();
      return;
    }
    res.status(200).type(route.contentType).setHeader('Content-Length', route.body.length);
    res.end(route.body);
  });
  const running = await listen(app, '127.0.0.1', 0);
  reportListening(running.server);
});
