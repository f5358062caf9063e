/**
 * The framework floor: our server's own application (createApp: Express with the same
 * settings, request validation from the contract, the one error path) and our listener,
 * with the search replaced by the precomputed bytes the baseline serves. Measured beside
 * the baseline and our server, it shows what Express and express-openapi-validator cost by
 * themselves, so the most any server built on them can reach on this machine; what our
 * server costs beyond it is the store and the search. Started like the baseline
 * (precomputed-server.ts): routes arrive as the first IPC message, the port goes back.
 */
import type { RequestHandler } from 'express';
import { createLogger } from '../log';
import { createApp } from '../server/app';
import { sendPageBody } from '../server/event-page';
import { listen } from '../server/listen';
import type { EventStore } from '../store/event-store';
import { type PrecomputedRoute, receiveRoutes, reportListening } from './precomputed-server';

/** Holds no conversation: only the search route is asked for, and it never reaches a store. */
const NO_STORE: EventStore = {
  open: async () => undefined,
  health: () => ({ conversationsLoaded: 0, eventsLoaded: 0, eventsSkipped: 0, bytesHeld: 0, memoryBudgetBytes: null, conversationsDropped: 0 }),
  close: async () => undefined,
};

function precomputedAnswers(routes: readonly PrecomputedRoute[]): RequestHandler {
  const byPath = new Map(routes.map((route) => [route.path, route]));
  return (req, res, next) => {
    const route = byPath.get(req.originalUrl);
    if (!route) return next();
    // Written as our search route writes a page, so the floor differs from it by the search alone.
    sendPageBody(res, [route.body]);
  };
}

receiveRoutes(async (routes) => {
  const app = createApp({ store: NO_STORE, logger: createLogger(), searchHandler: precomputedAnswers(routes) });
  const running = await listen(app, '127.0.0.1', 0);
  reportListening(running.server);
});
