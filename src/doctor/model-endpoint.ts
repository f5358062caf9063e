import { asArray, readPath } from './data-path';
import { describeBody, isKeyRejected, sendRequest, successBody, type HttpOutcome } from './http';
import { fail, pass, warn, type Check } from './report';

/** Where the OpenAI-compatible API lives (`baseUrl`, ending in /v1) and the server root beside it. */
export interface ModelEndpoint {
  baseUrl: string;
  serverRoot: string;
  hostname: string;
}

/** How to talk to the endpoint: the key and how long to wait for each answer. */
export interface EndpointAccess {
  endpoint: ModelEndpoint;
  apiKey: string;
  timeoutMs: number;
}

const MODEL_PREFIX = 'openai/';

/**
 * Checks that the model string is `openai/<served-model-id>` and returns the id after the prefix
 * (the whole string when the prefix is missing, so the id can still be compared with the served list).
 */
export function checkModelString(model: string): { modelId: string; check: Check } {
  const name = 'model string';
  if (!model.startsWith(MODEL_PREFIX)) {
    return {
      modelId: model,
      check: fail(
        name,
        `"${model}" lacks the required ${MODEL_PREFIX} prefix`,
        `Write it as --model ${MODEL_PREFIX}${model}, the id exactly as GET /v1/models lists it.`,
      ),
    };
  }
  const modelId = model.slice(MODEL_PREFIX.length);
  if (modelId === '') {
    return {
      modelId,
      check: fail(name, `"${model}" has no model id after ${MODEL_PREFIX}`, `Append the id GET /v1/models lists, as in --model ${MODEL_PREFIX}<id>.`),
    };
  }
  return { modelId, check: pass(name, `"${model}" has the ${MODEL_PREFIX} prefix`) };
}

/** The base URL read into an endpoint, or the reason it does not have the form http(s)://host:port/v1. */
export type BaseUrlReading = { ok: true; endpoint: ModelEndpoint } | { ok: false; problem: string };

/** Reads a base URL, accepting only `http(s)://host:port/v1` (a trailing slash is tolerated). */
export function readBaseUrl(raw: string): BaseUrlReading {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: `"${raw}" is not a URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, problem: `"${raw}" uses ${url.protocol.slice(0, -1)}, not http or https` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, problem: `"${url.protocol}//${url.host}${url.pathname}" carries credentials in the URL` };
  }
  if (!hasExplicitPort(raw)) return { ok: false, problem: `"${raw}" names no port` };
  if (url.pathname !== '/v1' && url.pathname !== '/v1/') {
    return { ok: false, problem: `"${raw}" has the path ${url.pathname} instead of /v1` };
  }
  if (url.search !== '' || url.hash !== '') return { ok: false, problem: `"${raw}" has a query or fragment` };
  return { ok: true, endpoint: { baseUrl: `${url.origin}/v1`, serverRoot: url.origin, hostname: url.hostname } };
}

function hasExplicitPort(raw: string): boolean {
  const authority = raw.slice(raw.indexOf('//') + 2).split(/[/?#]/)[0] ?? '';
  return /:\d+$/.test(authority);
}

/** Turns a base URL reading into its checklist line; network checks are skipped while it fails. */
export function checkBaseUrl(reading: BaseUrlReading): Check {
  const name = 'base URL';
  if (reading.ok) return pass(name, `${reading.endpoint.baseUrl} has the form http(s)://host:port/v1`);
  return fail(
    name,
    `${reading.problem}; the endpoint checks were skipped`,
    'Pass --base-url in the form http://<host>:<port>/v1, for example http://192.168.1.20:8000/v1.',
  );
}

/**
 * Warns when the model server's host is loopback (`localhost`, 127.x.x.x, ::1) or 0.0.0.0: from a
 * container on the same machine those addresses reach the container itself, not the model server.
 */
export function checkModelHost(endpoint: ModelEndpoint): Check {
  const name = 'model server host';
  const host = endpoint.hostname;
  const fix = "Start the model server listening on 0.0.0.0 and use the machine's network address (from Docker, host.docker.internal) in --base-url.";
  if (isLoopback(host)) {
    return warn(name, `${host} is a loopback address: a container on the same host cannot reach it`, fix);
  }
  if (host === '0.0.0.0') {
    return warn(name, '0.0.0.0 is a listen address, not a destination: from a container it means the container itself', fix);
  }
  return pass(name, `${host} is not a loopback address`);
}

function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** What `GET {base}/models` told us: the served ids (and the raw body, which may carry context sizes), or why not. */
export type ModelsListing = { kind: 'listed'; url: string; ids: string[]; body: unknown } | { kind: 'failed'; check: Check };

/**
 * Asks `GET {base}/models` with the key and returns the served ids, or a failing check: unreachable
 * (with the address tried), key rejected (401/403), or an answer that is not an OpenAI models list.
 */
export async function listServedModels(access: EndpointAccess): Promise<ModelsListing> {
  const url = `${access.endpoint.baseUrl}/models`;
  const outcome = await sendRequest({ method: 'GET', url, apiKey: access.apiKey, timeoutMs: access.timeoutMs });
  const answer = readAnswer(ENDPOINT_CHECK, outcome, BASE_URL_PATH_FIX);
  if (!answer.ok) return { kind: 'failed', check: answer.check };
  const entries = readPath(answer.body, ['data']);
  if (!Array.isArray(entries)) {
    return {
      kind: 'failed',
      check: fail(ENDPOINT_CHECK, `GET ${url} did not answer with an OpenAI models list ({"data": [...]})`, BASE_URL_PATH_FIX, url),
    };
  }
  const ids = entries.map((entry) => readPath(entry, ['id'])).filter((id): id is string => typeof id === 'string');
  return { kind: 'listed', url, ids, body: answer.body };
}

const ENDPOINT_CHECK = 'endpoint and key';
const BASE_URL_PATH_FIX = 'Point --base-url at the OpenAI-compatible API of the model server, the path that ends in /v1.';

/** The passing line for a models list that answered. */
export function checkEndpointReached(listing: Extract<ModelsListing, { kind: 'listed' }>): Check {
  return pass(ENDPOINT_CHECK, `GET ${listing.url} answered with ${listing.ids.length} model(s); the key was accepted`, listing.url);
}

/**
 * The body of a 2xx answer, or a failing check for an unreachable endpoint, a rejected key or another
 * status (whose fix is `unexpectedStatusFix`).
 */
function readAnswer(name: string, outcome: HttpOutcome, unexpectedStatusFix: string): { ok: true; body: unknown } | { ok: false; check: Check } {
  const success = successBody(outcome);
  if (success !== undefined) return { ok: true, body: success.body };
  return { ok: false, check: explainFailedRequest(name, outcome, unexpectedStatusFix) };
}

function explainFailedRequest(name: string, outcome: HttpOutcome, unexpectedStatusFix: string): Check {
  if (outcome.kind === 'unreachable') {
    return fail(
      name,
      `could not reach ${outcome.url} (${outcome.reason})`,
      'Start the model server and check host and port; if the agent runs in a container, the server must listen on 0.0.0.0.',
      outcome.url,
    );
  }
  if (isKeyRejected(outcome)) {
    return fail(
      name,
      `${outcome.url} answered HTTP ${outcome.status}: the API key differs from the one the model server was started with`,
      'Pass --api-key with the key the model server was started with (its --api-key option, or a LiteLLM virtual key).',
      outcome.url,
    );
  }
  return fail(name, `${outcome.url} answered HTTP ${outcome.status}: ${describeBody(outcome.body)}`, unexpectedStatusFix, outcome.url);
}

/** Checks that the model id is one the server lists, naming the ids it does list when it is not. */
export function checkModelId(modelId: string, servedIds: readonly string[]): Check {
  const name = 'model id';
  if (servedIds.includes(modelId)) return pass(name, `"${modelId}" is served`);
  if (servedIds.length === 0) {
    return fail(name, `the server lists no models, so "${modelId}" is not served`, 'Load the model on the model server, then rerun the doctor.');
  }
  const listed = servedIds.map((id) => `"${id}"`).join(', ');
  return fail(
    name,
    `"${modelId}" is not served; the server lists ${listed}`,
    `Use one of the listed ids exactly, as in --model openai/${servedIds[0] ?? '<id>'}.`,
  );
}

const PROBE_TOOL_NAME = 'get_weather';

function toolProbeRequestBody(modelId: string): unknown {
  return {
    model: modelId,
    temperature: 0,
    max_tokens: 512,
    tool_choice: 'auto',
    messages: [
      { role: 'system', content: 'You are an agent. Use the provided tools to answer; do not guess.' },
      { role: 'user', content: 'What is the weather in Paris right now? Call the get_weather tool to find out.' },
    ],
    tools: [
      {
        type: 'function',
        function: {
          name: PROBE_TOOL_NAME,
          description: 'Returns the current weather for a city.',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ],
  };
}

/**
 * Sends one chat completion with one tool and a prompt that needs it, and checks the reply calls the
 * tool. A reply without tool calls is a warning (the model may not use tools reliably); a server that
 * rejects the request outright is a failure, since the agent sends tools with every request.
 */
export async function probeToolUse(access: EndpointAccess, modelId: string): Promise<Check> {
  const name = 'tool use';
  const url = `${access.endpoint.baseUrl}/chat/completions`;
  const outcome = await sendRequest({ method: 'POST', url, apiKey: access.apiKey, timeoutMs: access.timeoutMs, json: toolProbeRequestBody(modelId) });
  const answer = readAnswer(name, outcome, TOOL_CALLING_FIX);
  if (!answer.ok) return answer.check;
  const firstChoice = asArray(readPath(answer.body, ['choices']))[0];
  return judgeToolReply(name, readPath(firstChoice, ['message']), url);
}

const TOOL_CALLING_FIX =
  'Enable tool calling on the model server (vLLM/SGLang: --enable-auto-tool-choice with a --tool-call-parser; llama.cpp: --jinja).';

function judgeToolReply(name: string, message: unknown, url: string): Check {
  const calledTools = asArray(readPath(message, ['tool_calls'])).map((call) => readPath(call, ['function', 'name']));
  if (calledTools.includes(PROBE_TOOL_NAME)) return pass(name, `the model answered with a call to ${PROBE_TOOL_NAME}`, url);
  const content = readPath(message, ['content']);
  const mentionsTool = typeof content === 'string' && content.includes(PROBE_TOOL_NAME);
  const reply =
    calledTools.length > 0 ? `called ${calledTools.map(String).join(', ')} instead of ${PROBE_TOOL_NAME}` : 'answered without a tool call';
  const fix = mentionsTool
    ? 'The reply text names the tool, so the server may not parse tool calls: set its tool-call parser (vLLM --tool-call-parser, llama.cpp --jinja) or use a different model.'
    : 'Use a different model with reliable tool calling; this one may act like a chatbot, refuse tools or fail tool calls.';
  return warn(name, `asked to use ${PROBE_TOOL_NAME}, the model ${reply}: it may not use tools reliably`, fix, url);
}
