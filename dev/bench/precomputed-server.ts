/**
 * What the two precomputed servers share, the baseline (baseline-server.ts) and the
 * framework floor (framework-floor-server.ts): each is a child process that answers the
 * benchmark's URLs with the exact bytes our server sent for them. The parent hands over
 * the routes as the first IPC message; the child listens on a port of its own choosing
 * (port 0, so there is no race for a port) and sends the port back.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One URL a precomputed server answers, with the exact bytes our server sent for it. */
export interface PrecomputedRoute {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

/** Parent to child: everything it will serve. */
export interface RoutesMessage {
  readonly routes: readonly PrecomputedRoute[];
}

/** Child to parent: it listens. */
export interface ListeningMessage {
  readonly port: number;
}

/** In the child: calls `serve` with the routes once the parent sends them. */
export function receiveRoutes(serve: (routes: PrecomputedRoute[]) => void | Promise<void>): void {
  process.once('message', (message: RoutesMessage) => {
    // The 'advanced' serialization delivers Uint8Arrays; Buffer views avoid copying them.
    const routes = message.routes.map((route) => ({ ...route, body: Buffer.from(route.body.buffer, route.body.byteOffset, route.body.byteLength) }));
    Promise.resolve(serve(routes)).catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
  });
}

/** In the child: tells the parent which port `server` listens on. */
export function reportListening(server: Server): void {
  const reply: ListeningMessage = { port: (server.address() as AddressInfo).port };
  process.send?.(reply);
}
