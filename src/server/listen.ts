import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/**
 * Limits that keep slow or oversized clients from tying the server up. Node answers a
 * request line or headers beyond `maxHeaderSize` with 431 (414 is not used by Node).
 */
export const SERVER_LIMITS = {
  /** Whole request must arrive within this. */
  requestTimeoutMs: 30_000,
  /** Headers must arrive within this (slowloris). */
  headersTimeoutMs: 10_000,
  /** Idle keep-alive connections are closed after this. */
  keepAliveTimeoutMs: 5_000,
  /** Request line plus headers, in bytes. */
  maxHeaderSize: 16 * 1024,
  /** How long a graceful stop waits for requests in flight. */
  shutdownGraceMs: 8_000,
} as const;

export interface RunningServer {
  server: http.Server;
  url: string;
  /** Stops accepting, lets requests in flight finish (up to the grace period), then closes. */
  stop(): Promise<void>;
}

/** Listens with the limits above; resolves once the port is bound. */
export function listen(app: Express, host: string, port: number): Promise<RunningServer> {
  const server = http.createServer({ maxHeaderSize: SERVER_LIMITS.maxHeaderSize, requestTimeout: SERVER_LIMITS.requestTimeoutMs }, app);
  server.headersTimeout = SERVER_LIMITS.headersTimeoutMs;
  server.keepAliveTimeout = SERVER_LIMITS.keepAliveTimeoutMs;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({ server, url: `http://${shownHost}:${address.port}`, stop: () => stopGracefully(server) });
    });
  });
}

function stopGracefully(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    const forceTimer = setTimeout(() => server.closeAllConnections(), SERVER_LIMITS.shutdownGraceMs);
    forceTimer.unref();
    server.close(() => {
      clearTimeout(forceTimer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
