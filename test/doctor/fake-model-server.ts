import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One canned answer; a string body is sent as plain text, anything else as JSON. `public` routes
 * answer without checking the key, as TGI's /v1/models does.
 */
export interface FakeAnswer {
  status?: number;
  body: unknown;
  public?: boolean;
}

/** Routes keyed "METHOD /path"; a function receives the parsed request body. */
export type FakeRoutes = Record<string, FakeAnswer | ((requestBody: unknown) => FakeAnswer)>;

export interface FakeServerOptions {
  apiKey: string;
  routes: FakeRoutes;
  /** The body a wrong key gets, in the flavour of the server being imitated; a string is sent as plain text. */
  unauthorizedBody?: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export interface FakeModelServer {
  baseUrl: string;
  requests: RecordedRequest[];
  close: () => Promise<void>;
}

/**
 * Starts a real OpenAI-compatible model server imitation on 127.0.0.1, port 0: it checks the Bearer
 * key on every non-public route and answers from `routes`, 404 for anything else.
 */
export async function startFakeModelServer(options: FakeServerOptions): Promise<FakeModelServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    void readJson(request).then((body) => {
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      requests.push({ method: request.method ?? 'GET', path, authorization: request.headers.authorization, body });
      const route = options.routes[`${request.method} ${path}`];
      const answer = typeof route === 'function' ? route(body) : route;
      const reply = (status: number, payload: unknown): void => {
        if (typeof payload === 'string') response.writeHead(status, { 'content-type': 'text/plain' }).end(payload);
        else response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      };
      if (answer === undefined) return reply(404, { detail: 'Not Found' });
      if (answer.public !== true && request.headers.authorization !== `Bearer ${options.apiKey}`) {
        return reply(401, options.unauthorizedBody ?? { error: 'Unauthorized' });
      }
      reply(answer.status ?? 200, answer.body);
    });
  });
  const port = await listen(server);
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests, close: () => closeServer(server) };
}

/** Runs `use` against a fake server and closes the server afterwards, whatever happens. */
export async function withFakeModelServer<T>(options: FakeServerOptions, use: (server: FakeModelServer) => Promise<T>): Promise<T> {
  const server = await startFakeModelServer(options);
  try {
    return await use(server);
  } finally {
    await server.close();
  }
}

/** A server that accepts connections and never answers, for timeout tests. */
export async function startSilentServer(): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const server = createServer(() => undefined);
  const port = await listen(server);
  return { baseUrl: `http://127.0.0.1:${port}/v1`, close: () => closeServer(server) };
}

/** A loopback base URL where nothing listens: a port that was just freed. */
export async function unusedBaseUrl(): Promise<string> {
  const server = createServer();
  const port = await listen(server);
  await closeServer(server);
  return `http://127.0.0.1:${port}/v1`;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The models list every OpenAI-compatible server answers, with extra fields per entry. */
export function modelsList(...entries: Array<Record<string, unknown> & { id: string }>): FakeAnswer {
  return { body: { object: 'list', data: entries.map((entry) => ({ object: 'model', ...entry })) } };
}

/** A chat completion whose message calls `toolName`. */
export function toolCallReply(toolName: string): FakeAnswer {
  return {
    body: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call-1', type: 'function', function: { name: toolName, arguments: '{"city":"Paris"}' } }],
          },
        },
      ],
    },
  };
}

/** A chat completion that answers in prose, as a model that ignores tools does. */
export function plainReply(content: string): FakeAnswer {
  return {
    body: { id: 'chatcmpl-2', object: 'chat.completion', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }] },
  };
}
