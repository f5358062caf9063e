/**
 * The baseline: the fastest a Node process can answer the benchmark's URLs. It answers each
 * path with bytes it already holds (the exact body our server sent for that path), so the
 * gap between it and our server is everything our server does per request: routing,
 * validation, the search and building the body. Started like the framework floor
 * (precomputed-server.ts).
 */
import http from 'node:http';
import { receiveRoutes, reportListening } from './precomputed-server';

// Same keep-alive timeout as our server (src/server/listen.ts), so connections behave alike.
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

receiveRoutes((routes) => {
  const byPath = new Map(routes.map((route) => [route.path, route]));
  const server = http.createServer((request, response) => {
    const route = byPath.get(request.url ?? '');
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': route.contentType, 'content-length': route.body.length });
    response.end(route.body);
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.listen(0, '127.0.0.1', () => reportListening(server));
});
