import { asArray, asPositiveInteger, isRecord, readPath } from './data-path';
import { sendRequest, successBody, type HttpOutcome } from './http';
import type { EndpointAccess, ModelEndpoint } from './model-endpoint';
import { fail, pass, warn, type Check } from './report';

/** The agent's system prompt and tool definitions need this many tokens (seed section 1). */
export const MINIMUM_CONTEXT_TOKENS = 22000;
/** The context size OpenHands recommends for local models. */
export const RECOMMENDED_CONTEXT_TOKENS = 32768;

/**
 * A context size and where it was read. A `served` figure is the window the server actually runs
 * with; an `upper-bound` is the most the model supports (training size, model metadata), which
 * proves a window too small but never that it is big enough.
 */
export interface ContextFigure {
  tokens: number;
  source: string;
  kind: 'served' | 'upper-bound';
}

/** The figure given with --context-window, which takes precedence over anything the server reports. */
export function contextFigureFromFlag(tokens: number): ContextFigure {
  return { tokens, source: '--context-window', kind: 'served' };
}

interface SourceRequest {
  method: 'GET' | 'POST';
  url: string;
  json?: unknown;
}

interface ContextSource {
  source: string;
  kind: ContextFigure['kind'];
  request: (endpoint: ModelEndpoint, modelId: string) => SourceRequest;
  read: (body: unknown, modelId: string) => number | undefined;
}

const openAiModels = (endpoint: ModelEndpoint): SourceRequest => ({ method: 'GET', url: `${endpoint.baseUrl}/models` });
const atRoot =
  (path: string) =>
  (endpoint: ModelEndpoint): SourceRequest => ({ method: 'GET', url: `${endpoint.serverRoot}${path}` });

function findEntry(list: unknown, matches: (entry: unknown) => boolean): unknown {
  return asArray(list).find(matches);
}

const hasField =
  (field: string, value: string) =>
  (entry: unknown): boolean =>
    readPath(entry, [field]) === value;

function readLmStudioLoadedContext(body: unknown, modelId: string): number | undefined {
  for (const model of asArray(readPath(body, ['models']))) {
    const instances = asArray(readPath(model, ['loaded_instances']));
    const isThisModel = readPath(model, ['key']) === modelId || instances.some(hasField('id', modelId));
    if (!isThisModel) continue;
    const instance = instances.find(hasField('id', modelId)) ?? instances[0];
    return asPositiveInteger(readPath(instance, ['config', 'context_length']));
  }
  return undefined;
}

function readOllamaModelMaximum(body: unknown): number | undefined {
  const modelInfo = readPath(body, ['model_info']);
  const architecture = readPath(modelInfo, ['general.architecture']);
  if (!isRecord(modelInfo) || typeof architecture !== 'string') return undefined;
  return asPositiveInteger(modelInfo[`${architecture}.context_length`]);
}

/**
 * Where each model server reports its context window (docs/reference-behaviour.md, "Deployments"), in the order the
 * doctor trusts them: served figures first, then upper bounds. Ollama's /api/show and llama.cpp's
 * n_ctx_train are the model's own maximum, not what the server allocated, hence upper bounds.
 */
const CONTEXT_SOURCES: readonly ContextSource[] = [
  {
    source: 'vLLM/SGLang GET /v1/models data[].max_model_len',
    kind: 'served',
    request: openAiModels,
    read: (body, modelId) => asPositiveInteger(readPath(findEntry(readPath(body, ['data']), hasField('id', modelId)), ['max_model_len'])),
  },
  {
    source: 'llama.cpp GET /props default_generation_settings.n_ctx',
    kind: 'served',
    request: atRoot('/props'),
    read: (body) => asPositiveInteger(readPath(body, ['default_generation_settings', 'n_ctx'])),
  },
  {
    source: 'LM Studio GET /api/v1/models models[].loaded_instances[].config.context_length',
    kind: 'served',
    request: atRoot('/api/v1/models'),
    read: readLmStudioLoadedContext,
  },
  {
    source: 'LM Studio GET /api/v0/models data[].loaded_context_length',
    kind: 'served',
    request: atRoot('/api/v0/models'),
    read: (body, modelId) => asPositiveInteger(readPath(findEntry(readPath(body, ['data']), hasField('id', modelId)), ['loaded_context_length'])),
  },
  {
    source: 'Ollama GET /api/ps models[].context_length',
    kind: 'served',
    request: atRoot('/api/ps'),
    read: (body, modelId) =>
      asPositiveInteger(
        readPath(
          findEntry(readPath(body, ['models']), (entry) => hasField('name', modelId)(entry) || hasField('model', modelId)(entry)),
          ['context_length'],
        ),
      ),
  },
  {
    source: 'TGI GET /info max_input_tokens',
    kind: 'served',
    request: atRoot('/info'),
    read: (body) => asPositiveInteger(readPath(body, ['max_input_tokens'])),
  },
  {
    source: 'TGI GET /info max_total_tokens',
    kind: 'served',
    request: atRoot('/info'),
    read: (body) => asPositiveInteger(readPath(body, ['max_total_tokens'])),
  },
  {
    source: 'LiteLLM GET /v1/model/info data[].model_info.max_input_tokens',
    kind: 'served',
    request: (endpoint) => ({ method: 'GET', url: `${endpoint.baseUrl}/model/info` }),
    read: (body, modelId) =>
      asPositiveInteger(readPath(findEntry(readPath(body, ['data']), hasField('model_name', modelId)), ['model_info', 'max_input_tokens'])),
  },
  {
    source: 'llama.cpp GET /v1/models data[].meta.n_ctx_train (training size)',
    kind: 'upper-bound',
    request: openAiModels,
    read: (body, modelId) => asPositiveInteger(readPath(findEntry(readPath(body, ['data']), hasField('id', modelId)), ['meta', 'n_ctx_train'])),
  },
  {
    source: 'LM Studio GET /api/v0/models data[].max_context_length (model maximum)',
    kind: 'upper-bound',
    request: atRoot('/api/v0/models'),
    read: (body, modelId) => asPositiveInteger(readPath(findEntry(readPath(body, ['data']), hasField('id', modelId)), ['max_context_length'])),
  },
  {
    source: 'Ollama POST /api/show model_info["<architecture>.context_length"] (model maximum)',
    kind: 'upper-bound',
    request: (endpoint, modelId) => ({ method: 'POST', url: `${endpoint.serverRoot}/api/show`, json: { model: modelId } }),
    read: readOllamaModelMaximum,
  },
];

/**
 * Asks every place a known model server reports its context window (in parallel, each request once,
 * each bounded by the access timeout) and returns every figure found, in trust order. The body of
 * `GET /v1/models` the caller already has is reused rather than fetched again.
 */
export async function discoverContextFigures(access: EndpointAccess, modelId: string, modelsListBody: unknown): Promise<ContextFigure[]> {
  const answers = new Map<string, Promise<HttpOutcome>>();
  const modelsRequest = openAiModels(access.endpoint);
  answers.set(requestKey(modelsRequest), Promise.resolve({ kind: 'answered', url: modelsRequest.url, status: 200, body: modelsListBody }));

  const fetchOnce = (request: SourceRequest): Promise<HttpOutcome> => {
    const key = requestKey(request);
    const known = answers.get(key);
    if (known !== undefined) return known;
    const pending = sendRequest({ ...request, apiKey: access.apiKey, timeoutMs: access.timeoutMs });
    answers.set(key, pending);
    return pending;
  };

  const figures = await Promise.all(
    CONTEXT_SOURCES.map(async (source): Promise<ContextFigure | undefined> => {
      const success = successBody(await fetchOnce(source.request(access.endpoint, modelId)));
      const tokens = success === undefined ? undefined : source.read(success.body, modelId);
      return tokens === undefined ? undefined : { tokens, source: source.source, kind: source.kind };
    }),
  );
  return figures.filter((figure): figure is ContextFigure => figure !== undefined);
}

function requestKey(request: SourceRequest): string {
  return `${request.method} ${request.url} ${JSON.stringify(request.json ?? null)}`;
}

const CONTEXT_CHECK = 'context window';
const RAISE_CONTEXT_FIX = `Restart the model server with a context of at least ${RECOMMENDED_CONTEXT_TOKENS} tokens (vLLM/SGLang --max-model-len, llama.cpp -c, Ollama OLLAMA_CONTEXT_LENGTH, LM Studio context length when loading).`;
const FIND_CONTEXT_FIX =
  'Pass --context-window N, reading N from the server: vLLM/SGLang GET /v1/models max_model_len, llama.cpp GET /props default_generation_settings.n_ctx, ' +
  'LM Studio GET /api/v0/models loaded_context_length, Ollama GET /api/ps context_length, TGI GET /info max_input_tokens, LiteLLM GET /v1/model/info max_input_tokens.';

/**
 * Judges the context window from the figures found: the first served figure decides (below 22000
 * fails, below 32768 warns). Without one, an upper bound below 22000 still fails, since the server
 * cannot serve more than the model supports; otherwise the window is unknown, which warns and says
 * where to look.
 */
export function checkContextWindow(figures: readonly ContextFigure[]): Check {
  const served = figures.find((figure) => figure.kind === 'served');
  if (served !== undefined) return judgeServedWindow(served);

  const bounds = figures.filter((figure) => figure.kind === 'upper-bound');
  const smallest = bounds.reduce<ContextFigure | undefined>(
    (min, figure) => (min === undefined || figure.tokens < min.tokens ? figure : min),
    undefined,
  );
  if (smallest !== undefined && smallest.tokens < MINIMUM_CONTEXT_TOKENS) {
    return fail(
      CONTEXT_CHECK,
      `the model supports at most ${smallest.tokens} tokens (${smallest.source}), below the ${MINIMUM_CONTEXT_TOKENS} the agent needs`,
      `Use a model whose context reaches at least ${RECOMMENDED_CONTEXT_TOKENS} tokens.`,
      smallest.source,
    );
  }
  const hint =
    smallest === undefined
      ? ''
      : ` (the model supports up to ${smallest.tokens} tokens per ${smallest.source}, but the served window may be smaller)`;
  return warn(CONTEXT_CHECK, `the served context window is unknown${hint}`, FIND_CONTEXT_FIX);
}

function judgeServedWindow(figure: ContextFigure): Check {
  const figureText = `${figure.tokens} tokens (${figure.source})`;
  if (figure.tokens < MINIMUM_CONTEXT_TOKENS) {
    return fail(
      CONTEXT_CHECK,
      `${figureText}: below the ${MINIMUM_CONTEXT_TOKENS} the system prompt and tool definitions need`,
      RAISE_CONTEXT_FIX,
      figure.source,
    );
  }
  if (figure.tokens < RECOMMENDED_CONTEXT_TOKENS) {
    return warn(
      CONTEXT_CHECK,
      `${figureText}: enough to start, below the recommended ${RECOMMENDED_CONTEXT_TOKENS}`,
      RAISE_CONTEXT_FIX,
      figure.source,
    );
  }
  return pass(CONTEXT_CHECK, figureText, figure.source);
}
