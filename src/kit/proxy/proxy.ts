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
import type { OpenApiDocument } from '../../contract';
import type { Coverage } from '../coverage';
import { curlLine } from '../curl';
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

export interface ProxySummary {
  target: string;
  startedAt: string;
  durationMs: number;
  exchanges: number;
  /** Exchanges forwarded but not judged: the judging thread had too much waiting, or failed. */
  unjudged: number;
  violations: ProxyViolation[];
  coverage: Coverage;
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
}

/** Bodies larger than this are forwarded but not judged, so a huge answer cannot exhaust memory. */
const MAX_JUDGED_BODY_BYTES = 32 * 1024 * 1024;
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

  const server = http.createServer((request, response) => {
    const seq = ++exchanges;
    const method = request.method ?? 'GET';
    const clientTarget = request.url ?? '/';
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
          judging.judge(
            {
              seq,
              method,
              target: clientTarget,
              status: answer.statusCode ?? 0,
              contentType: contentTypeOf(answer.headers['content-type']),
              withKey,
            },
            size <= MAX_JUDGED_BODY_BYTES ? ownBuffer(chunks, size) : undefined,
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

function maskSessionKey(target: string): string {
  return target.replace(/([?&]session_api_key=)[^&]*/gi, '$1$SESSION_API_KEY');
}

function contentTypeOf(header: string | string[] | undefined): string | null {
  return (Array.isArray(header) ? header[0] : header) ?? null;
}
