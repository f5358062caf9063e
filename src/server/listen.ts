import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import type { Express } from 'express';
import { eventSocketsOf } from '../live/event-sockets';

export interface ServerLimits {
  /** Whole request must arrive within this. */
  readonly requestTimeoutMs: number;
  /** Headers must arrive within this (slowloris); Node answers 408 and closes. */
  readonly headersTimeoutMs: number;
  /**
   * How often Node checks the two timeouts above: a timed-out connection is closed at the
   * next check, so Node's default of 30 s would let a client that stalls mid-headers keep
   * its connection up to that much longer than `headersTimeoutMs`.
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

/**
 * A request that asks to upgrade anything but the events socket (`curl --http2` sends
 * `Upgrade: h2c` on every request) is answered as a plain HTTP/1.1 request, as RFC 9110
 * section 7.8 lets a server ignore the header. Node has already detached the connection
 * from its HTTP handling, so the response is tied to the socket here and the connection
 * closed once it is sent.
 */
function answerWithoutUpgrade(server: http.Server, request: http.IncomingMessage, socket: Socket): void {
  const response = new http.ServerResponse(request);
  response.shouldKeepAlive = false;
  response.assignSocket(socket);
  response.once('finish', () => {
    response.detachSocket(socket);
    socket.end();
  });
  socket.once('error', () => socket.destroy());
  server.emit('request', request, response);
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
  const connections = trackConnections(server);
  const sockets = eventSocketsOf(app);
  // Node hands every request carrying `Upgrade` to this event, whatever its path, and detaches it from HTTP.
  server.on('upgrade', (request, socket: Socket, head: Buffer) => {
    if (sockets?.handles(request)) sockets.handleUpgrade(request, socket, head);
    else answerWithoutUpgrade(server, request, socket);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        server,
        url: `http://${shownHost}:${address.port}`,
        stop: () => {
          sockets?.close();
          return stopGracefully(server, connections, limits.shutdownGraceMs);
        },
      });
    });
  });
}

interface Connections {
  /** Ends every connection as soon as it has no response in progress; new ones are ended the same way. */
  endWhenIdle(): void;
}

/** Counts each connection's responses in progress, so a stop can end a connection exactly when its last one is out. */
function trackConnections(server: http.Server): Connections {
  const responsesInProgress = new Map<Socket, number>();
  let ending = false;
  const endIfIdle = (socket: Socket) => {
    if (ending && !responsesInProgress.get(socket)) socket.end();
  };
  server.on('connection', (socket: Socket) => {
    responsesInProgress.set(socket, 0);
    socket.once('close', () => responsesInProgress.delete(socket));
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    responsesInProgress.set(socket, (responsesInProgress.get(socket) ?? 0) + 1);
    // 'close' follows 'finish', which Node emits once the last byte is handed to the kernel.
    res.once('close', () => {
      responsesInProgress.set(socket, (responsesInProgress.get(socket) ?? 1) - 1);
      endIfIdle(socket);
    });
  });
  return {
    endWhenIdle() {
      ending = true;
      for (const socket of responsesInProgress.keys()) endIfIdle(socket);
    },
  };
}

/**
 * Stops accepting, lets each connection finish sending what it was asked for, then closes
 * it; whatever is still open after the grace period is cut. Node's own http close() is not
 * used: it destroys every connection it counts as idle, and it counts a response as done
 * once res.end() is called, not once its bytes are out, so a large page being read slowly
 * was cut short, partway through its bytes. net.Server's close only stops listening.
 */
function stopGracefully(server: http.Server, connections: Connections, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const forceTimer = setTimeout(() => server.closeAllConnections(), graceMs);
    forceTimer.unref();
    net.Server.prototype.close.call(server, () => {
      clearTimeout(forceTimer);
      resolve();
    });
    connections.endWhenIdle();
  });
}
