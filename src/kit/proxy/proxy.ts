/**
 * The validating proxy: listens, forwards every request to the implementation unchanged
 * (method, path, query, headers, body, streamed both ways), and has each exchange judged
 * against the contract on a thread of its own (judging-worker.ts) once the response has
 * been passed on, so the client waits for nothing but the forwarding. Header values
 * (session keys among them) are never recorded; a violation's curl line reads the key from
 * `$SESSION_API_KEY`.
 */
import { maskSecretText } from '../../secrets';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type OpenApiDocument, operationTable } from '../../contract';
import type { Coverage } from '../coverage';
import { curlLine } from '../curl';
import { harEntry, type HarEntry } from '../har';
import { SESSION_KEY_HEADER } from '../http';
import { ownBuffer, startJudging } from './judging';

export interface ProxyViolation {
  seq: number;
  at: string;
  method: string;
  /** The request's path and query, with any session key in the query masked. */
  target: string;
  operationId: string | undefined;
  status: number;
  problems: string[];
  curl: string;
}

/** Requests to paths the contract does not declare (a viewer's page and assets, `/docs`, `/health`): passed through, not judged. */
export interface OutsideTraffic {
  method: string;
  path: string;
  requests: number;
  /** The statuses they were answered with, each once. */
  statuses: number[];
}

export interface ProxySummary {
  target: string;
  startedAt: string;
  durationMs: number;
  exchanges: number;
  /** Exchanges forwarded but not judged: the judging thread had too much waiting, or failed. */
  unjudged: number;
  violations: ProxyViolation[];
  coverage: Coverage;
  /** What passed through outside the contract, by method and path. */
  outside: OutsideTraffic[];
  /** WebSocket upgrades passed through, by path. */
  webSockets: { path: string; connections: number }[];
}

export interface ContractProxy {
  url: string;
  /** What was seen; complete once `stop` has settled (judgements still running are waited for there). */
  summary(): ProxySummary;
  stop(): Promise<void>;
}

export interface ProxyOptions {
  /** The implementation, e.g. `http://127.0.0.1:8000`; a path prefix is kept. */
  target: string;
  port: number;
  host?: string;
  document: OpenApiDocument;
  onViolation?: (violation: ProxyViolation) => void;
  /** Receives every exchange forwarded, as a HAR entry with its secrets masked (`--record`). */
  record?: (entry: HarEntry) => void;
}

/** Bodies larger than this are forwarded but not judged, so a huge answer cannot exhaust memory. */
const MAX_JUDGED_BODY_BYTES = 32 * 1024 * 1024;
/** Distinct paths outside the contract listed, at most; past it they are still forwarded. */
const MAX_OUTSIDE_PATHS = 200;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

export type ProxyStart = { ok: true; proxy: ContractProxy } | { ok: false; message: string };

export async function startContractProxy(options: ProxyOptions): Promise<ProxyStart> {
  const target = new URL(options.target);
  const targetPrefix = target.pathname.replace(/\/+$/, '');
  const violations: ProxyViolation[] = [];
  const judging = startJudging(options.document, (exchange, verdict) => {
    if (verdict.violations.length === 0) return;
    const shown = maskSessionKey(exchange.target);
    const violation: ProxyViolation = {
      seq: exchange.seq,
      at: new Date().toISOString(),
      method: exchange.method,
      target: shown,
      operationId: verdict.operationId,
      status: exchange.status,
      problems: verdict.violations.map((problem) => maskSecretText(problem)),
      curl: curlLine(`${options.target.replace(/\/+$/, '')}${shown}`, exchange.withKey) + (exchange.method === 'GET' ? '' : ` -X ${exchange.method}`),
    };
    violations.push(violation);
    options.onViolation?.(violation);
  });
  const transport = target.protocol === 'https:' ? https : http;
  const agent = new transport.Agent({ keepAlive: true });
  const started = Date.now();
  let exchanges = 0;
  const table = operationTable(options.document);
  const outside = new Map<string, OutsideTraffic>();
  const webSockets = new Map<string, number>();
  const pathOf = (clientTarget: string) => new URL(clientTarget, 'http://proxy.invalid').pathname;
  const noteOutside = (method: string, path: string, status: number) => {
    const key = `${method} ${path}`;
    const known = outside.get(key);
    if (known) {
      known.requests += 1;
      if (!known.statuses.includes(status)) known.statuses.push(status);
    } else if (outside.size < MAX_OUTSIDE_PATHS) outside.set(key, { method, path, requests: 1, statuses: [status] });
  };

  const server = http.createServer((request, response) => {
    const seq = ++exchanges;
    const method = request.method ?? 'GET';
    const clientTarget = request.url ?? '/';
    const startedAt = Date.now();
    // A path no operation of the contract has (whatever the method) is not the contract's business.
    const inContract = table.methodsAt(pathOf(clientTarget)).length > 0;
    const requestChunks: Buffer[] = [];
    let requestSize = 0;
    if (options.record)
      request.on('data', (chunk: Buffer) => {
        requestSize += chunk.length;
        if (requestSize <= MAX_JUDGED_BODY_BYTES) requestChunks.push(chunk);
      });
    const headers: http.OutgoingHttpHeaders = { ...request.headers, host: target.host };
    for (const name of HOP_BY_HOP) delete headers[name];
    const withKey = request.headers[SESSION_KEY_HEADER.toLowerCase()] !== undefined;
    const upstream = transport.request(
      {
        host: target.hostname,
        port: target.port || (target.protocol === 'https:' ? 443 : 80),
        method,
        path: targetPrefix + clientTarget,
        headers,
        agent,
      },
      (answer) => {
        const outgoing: http.OutgoingHttpHeaders = { ...answer.headers };
        for (const name of HOP_BY_HOP) delete outgoing[name];
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, outgoing);
        const chunks: Buffer[] = [];
        let size = 0;
        answer.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_JUDGED_BODY_BYTES) chunks.push(chunk);
        });
        answer.pipe(response);
        answer.on('end', () => {
          const kept = size <= MAX_JUDGED_BODY_BYTES;
          options.record?.(
            harEntry({
              startedAt,
              durationMs: Date.now() - startedAt,
              method,
              url: `${options.target.replace(/\/+$/, '')}${clientTarget}`,
              httpVersion: request.httpVersion,
              requestHeaders: request.rawHeaders,
              requestBody: requestSize <= MAX_JUDGED_BODY_BYTES ? Buffer.concat(requestChunks) : undefined,
              status: answer.statusCode ?? 0,
              statusText: answer.statusMessage ?? '',
              responseHeaders: answer.rawHeaders,
              responseBody: kept ? Buffer.concat(chunks) : undefined,
              responseSize: size,
            }),
          );
          if (!inContract) {
            noteOutside(method, pathOf(clientTarget), answer.statusCode ?? 0);
            return;
          }
          judging.judge(
            {
              seq,
              method,
              target: clientTarget,
              status: answer.statusCode ?? 0,
              contentType: contentTypeOf(answer.headers['content-type']),
              withKey,
            },
            kept ? ownBuffer(chunks, size) : undefined,
          );
        });
      },
    );
    upstream.on('error', (error) => {
      if (!response.headersSent) {
        response.writeHead(502, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            detail: `contract proxy: the implementation at ${options.target} did not answer (${(error as NodeJS.ErrnoException).code ?? error.message})`,
          }),
        );
      } else response.destroy();
    });
    request.pipe(upstream);
  });
  server.keepAliveTimeout = 5000;
  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = pathOf(request.url ?? '/');
    webSockets.set(path, (webSockets.get(path) ?? 0) + 1);
    passUpgradeThrough(request, socket, head, { transport, target, targetPrefix });
  });

  const listening = await new Promise<{ ok: true } | { ok: false; message: string }>((resolve) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      resolve({
        ok: false,
        message:
          error.code === 'EADDRINUSE'
            ? `port ${options.port} is in use; pick another with --port, or 0 for any free port`
            : `cannot listen on ${options.host ?? '127.0.0.1'}:${options.port} (${error.code ?? error.message})`,
      });
    });
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve({ ok: true }));
  });
  if (!listening.ok) {
    await judging.finish();
    return listening;
  }
  const { port } = server.address() as AddressInfo;
  return {
    ok: true,
    proxy: {
      url: `http://${options.host ?? '127.0.0.1'}:${port}`,
      summary: () => ({
        target: options.target,
        startedAt: new Date(started).toISOString(),
        durationMs: Date.now() - started,
        exchanges,
        unjudged: judging.unjudged,
        violations: [...violations].sort((a, b) => a.seq - b.seq),
        coverage: judging.coverage,
        outside: [...outside.values()].sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path))),
        webSockets: [...webSockets].map(([path, connections]) => ({ path, connections })),
      }),
      stop: async () => {
        await new Promise<void>((resolve) => {
          server.closeAllConnections();
          agent.destroy();
          server.close(() => resolve());
        });
        await judging.finish();
      },
    },
  };
}

/**
 * A WebSocket upgrade (the viewer's live socket) passed through as bytes: the request's head
 * forwarded with its Upgrade and Connection headers, the implementation's answer sent back, then
 * both sockets piped into each other until either closes. Not judged: the contract has no sockets.
 */
function passUpgradeThrough(
  request: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  upstream: { transport: typeof http | typeof https; target: URL; targetPrefix: string },
): void {
  const { transport, target, targetPrefix } = upstream;
  const outgoing = transport.request({
    host: target.hostname,
    port: target.port || (target.protocol === 'https:' ? 443 : 80),
    method: request.method,
    path: targetPrefix + (request.url ?? '/'),
    headers: { ...request.headers, host: target.host },
  });
  const close = () => socket.destroy();
  socket.on('error', () => outgoing.destroy());
  outgoing.on('error', close);
  outgoing.on('upgrade', (answer, upstreamSocket, upstreamHead) => {
    socket.write(headOf(answer));
    if (upstreamHead.length > 0) socket.write(upstreamHead);
    if (head.length > 0) upstreamSocket.write(head);
    upstreamSocket.on('error', close);
    socket.on('error', () => upstreamSocket.destroy());
    upstreamSocket.pipe(socket).pipe(upstreamSocket);
  });
  // The implementation refused the upgrade: its answer goes back as it is.
  outgoing.on('response', (answer) => {
    socket.write(headOf(answer, true));
    answer.pipe(socket);
  });
  outgoing.end();
}

/** A response head as bytes; `closing`: the body follows as it is (de-chunked) and the socket closes after it. */
function headOf(answer: http.IncomingMessage, closing = false): string {
  const lines = [`HTTP/1.1 ${answer.statusCode ?? 502} ${answer.statusMessage ?? ''}`];
  for (let index = 0; index + 1 < answer.rawHeaders.length; index += 2) {
    const name = answer.rawHeaders[index]!;
    if (closing && ['transfer-encoding', 'connection'].includes(name.toLowerCase())) continue;
    lines.push(`${name}: ${answer.rawHeaders[index + 1]}`);
  }
  if (closing) lines.push('Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n`;
}

function maskSessionKey(target: string): string {
  return target.replace(/([?&]session_api_key=)[^&]*/gi, '$1$SESSION_API_KEY');
}

function contentTypeOf(header: string | string[] | undefined): string | null {
  return (Array.isArray(header) ? header[0] : header) ?? null;
}
