import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface ServerLimits {
  /** Whole request must arrive within this. */
  readonly requestTimeoutMs: number;
  /** Headers must arrive within this (slowloris); Node answers 408 and closes. */
  readonly headersTimeoutMs: number;
  /**
   * How often Node checks the two timeouts above. Its default is 30 s, so a client that
   * stalls mid-headers held its connection for up to 40 s instead of 10.
   */
  readonly connectionsCheckingIntervalMs: number;
  /** Idle keep-alive connections are closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** Request line plus headers, in bytes. */
  readonly maxHeaderSize: number;
  /** How long a graceful stop waits for requests in flight. */
  readonly shutdownGraceMs: number;
}

/**
 * Limits that keep slow or oversized clients from tying the server up. Node answers a
 * request line or headers beyond `maxHeaderSize` with 431 (414 is not used by Node).
 * docs/hardening.md lists them with what a client sees when it hits one.
 */
export const SERVER_LIMITS: ServerLimits = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  connectionsCheckingIntervalMs: 1_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderSize: 16 * 1024,
  shutdownGraceMs: 8_000,
};

export interface RunningServer {
  server: http.Server;
  url: string;
  /** Stops accepting, lets requests in flight finish (up to the grace period), then closes. */
  stop(): Promise<void>;
}

/** Listens with `limits` (tests pass shorter ones); resolves once the port is bound. */
export function listen(app: Express, host: string, port: number, limits: ServerLimits = SERVER_LIMITS): Promise<RunningServer> {
  const server = http.createServer(
    {
      maxHeaderSize: limits.maxHeaderSize,
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: limits.connectionsCheckingIntervalMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
    },
    app,
  );
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({ server, url: `http://${shownHost}:${address.port}`, stop: () => stopGracefully(server, limits.shutdownGraceMs) });
    });
  });
}

function stopGracefully(server: http.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const forceTimer = setTimeout(() => server.closeAllConnections(), graceMs);
    forceTimer.unref();
    server.close(() => {
      clearTimeout(forceTimer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
