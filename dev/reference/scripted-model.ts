/**
 * A scripted OpenAI-compatible model on loopback: `POST /v1/chat/completions` answers, in order,
 * from a script of replies kept per model name, with non-streaming `chat.completion` bodies. It
 * lets the reference agent server run real conversations (real tools, real persistence) with no
 * model behind them. Every request is recorded; anything else is a 404.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  readonly name: string;
  /** An object is sent as its JSON; a string is sent as it is (so it can be broken JSON). */
  readonly arguments: Record<string, unknown> | string;
}

export type ScriptedReply =
  | { readonly text: string }
  | { readonly toolCalls: readonly ScriptedToolCall[]; readonly text?: string }
  | { readonly error: { readonly status: number; readonly message: string } };

export interface RecordedModelRequest {
  /** The `model` field as the client sent it (litellm strips its provider prefix). */
  readonly model: string;
  readonly body: Record<string, unknown>;
  /** The reply the script gave, or undefined when the script for that model was used up. */
  readonly reply: ScriptedReply | undefined;
}

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>/v1`, the `base_url` an OpenAI client is given. */
  readonly baseUrl: string;
  readonly requests: readonly RecordedModelRequest[];
  /** Replies not yet given, per model. */
  remaining(model: string): number;
  stop(): Promise<void>;
}

/** Replies per model name as the requests carry it, for instance `{ scripted: [...] }`. */
export type ModelScripts = Readonly<Record<string, readonly ScriptedReply[]>>;

export async function startScriptedModel(scripts: ModelScripts): Promise<ScriptedModel> {
  const queues = new Map(Object.entries(scripts).map(([model, replies]) => [model, [...replies]]));
  const requests: RecordedModelRequest[] = [];
  let completions = 0;

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => send(response, 500, { error: { message: String(error), type: 'server_error' } }));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
      await readBody(request);
      send(response, 404, { error: { message: `no route ${request.method} ${url.pathname}`, type: 'not_found' } });
      return;
    }
    const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
    const model = String(body['model'] ?? '');
    const reply = queues.get(model)?.shift();
    requests.push({ model, body, reply });
    if (reply === undefined) {
      send(response, 400, { error: { message: `the script for model "${model}" has no reply left`, type: 'invalid_request_error' } });
      return;
    }
    if ('error' in reply) {
      send(response, reply.error.status, { error: { message: reply.error.message, type: 'invalid_request_error' } });
      return;
    }
    completions += 1;
    send(response, 200, completion(model, completions, reply));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    remaining: (model) => queues.get(model)?.length ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function completion(model: string, sequence: number, reply: Exclude<ScriptedReply, { error: unknown }>): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: reply.text ?? null };
  const choice: Record<string, unknown> = { index: 0, finish_reason: 'stop', message };
  if ('toolCalls' in reply) {
    message['tool_calls'] = reply.toolCalls.map((call, index) => ({
      id: `call_${sequence}_${index}`,
      type: 'function',
      function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
    }));
    choice['finish_reason'] = 'tool_calls';
  }
  const body: Record<string, unknown> = {
    id: `chatcmpl-scripted-${sequence}`,
    object: 'chat.completion',
    // A fixed creation time: the recording should differ between runs only where the reference makes it so.
    created: 1_800_000_000 + sequence,
    model,
    choices: [choice],
    usage: { prompt_tokens: 100 + sequence, completion_tokens: 10 + sequence, total_tokens: 110 + 2 * sequence },
  };
  return body;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
