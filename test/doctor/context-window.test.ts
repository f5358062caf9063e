import { checkContextWindow, contextFigureFromFlag, discoverContextFigures, type ContextFigure } from '../../src/doctor/context-window';
import { listServedModels, readBaseUrl, type EndpointAccess } from '../../src/doctor/model-endpoint';
import type { Check, CheckStatus } from '../../src/doctor/report';
import { modelsList, withFakeModelServer, type FakeModelServer, type FakeRoutes } from './fake-model-server';

const API_KEY = 'sk-context-test';

function withServer<T>(routes: FakeRoutes, use: (server: FakeModelServer, access: EndpointAccess) => Promise<T>): Promise<T> {
  return withFakeModelServer({ apiKey: API_KEY, routes }, (server) => {
    const reading = readBaseUrl(server.baseUrl);
    if (!reading.ok) throw new Error(reading.problem);
    return use(server, { endpoint: reading.endpoint, apiKey: API_KEY, timeoutMs: 30_000 });
  });
}

/** Runs discovery the way the doctor does: the models list first, then every other source. */
async function judgeServer(routes: FakeRoutes, modelId: string): Promise<Check> {
  return withServer(routes, async (_server, access) => {
    const listing = await listServedModels(access);
    if (listing.kind !== 'listed') throw new Error(listing.check.message);
    return checkContextWindow(await discoverContextFigures(access, modelId, listing.body));
  });
}

describe('context window read from each server flavour', () => {
  const cases: Array<[string, { given: { routes: FakeRoutes; modelId: string }; want: { status: CheckStatus; message: string } }]> = [
    [
      'vLLM: /v1/models max_model_len',
      {
        given: {
          modelId: 'Qwen/Qwen3-8B',
          routes: { 'GET /v1/models': modelsList({ id: 'Qwen/Qwen3-8B', owned_by: 'vllm', max_model_len: 40960 }) },
        },
        want: { status: 'pass', message: '40960 tokens (vLLM/SGLang GET /v1/models data[].max_model_len)' },
      },
    ],
    [
      'SGLang: /v1/models max_model_len of the right entry',
      {
        given: {
          modelId: 'qwen-small',
          routes: {
            'GET /v1/models': modelsList(
              { id: 'other', owned_by: 'sglang', max_model_len: 131072 },
              { id: 'qwen-small', owned_by: 'sglang', max_model_len: 8192 },
            ),
          },
        },
        want: {
          status: 'fail',
          message: '8192 tokens (vLLM/SGLang GET /v1/models data[].max_model_len): below the 22000 the system prompt and tool definitions need',
        },
      },
    ],
    [
      'llama.cpp: /props n_ctx wins over the training size',
      {
        given: {
          modelId: 'qwen.gguf',
          routes: {
            'GET /v1/models': modelsList({ id: 'qwen.gguf', owned_by: 'llamacpp', meta: { n_ctx_train: 131072 } }),
            'GET /props': { body: { default_generation_settings: { n_ctx: 4096 } } },
          },
        },
        want: {
          status: 'fail',
          message:
            '4096 tokens (llama.cpp GET /props default_generation_settings.n_ctx): below the 22000 the system prompt and tool definitions need',
        },
      },
    ],
    [
      'LM Studio 0.4+: /api/v1/models loaded instance config',
      {
        given: {
          modelId: 'qwen/qwen3-8b',
          routes: {
            'GET /v1/models': modelsList({ id: 'qwen/qwen3-8b' }),
            'GET /api/v1/models': {
              body: {
                models: [
                  {
                    key: 'qwen/qwen3-8b',
                    max_context_length: 131072,
                    loaded_instances: [{ id: 'qwen/qwen3-8b', config: { context_length: 24576 } }],
                  },
                ],
              },
            },
          },
        },
        want: {
          status: 'warn',
          message:
            '24576 tokens (LM Studio GET /api/v1/models models[].loaded_instances[].config.context_length): enough to start, below the recommended 32768',
        },
      },
    ],
    [
      'LM Studio: /api/v0/models loaded_context_length',
      {
        given: {
          modelId: 'qwen/qwen3-8b',
          routes: {
            'GET /v1/models': modelsList({ id: 'qwen/qwen3-8b' }),
            'GET /api/v0/models': {
              body: { data: [{ id: 'qwen/qwen3-8b', state: 'loaded', max_context_length: 131072, loaded_context_length: 32768 }] },
            },
          },
        },
        want: { status: 'pass', message: '32768 tokens (LM Studio GET /api/v0/models data[].loaded_context_length)' },
      },
    ],
    [
      'Ollama: /api/ps allocated context wins over the model maximum',
      {
        given: {
          modelId: 'llama3.1:8b',
          routes: {
            'GET /v1/models': modelsList({ id: 'llama3.1:8b', owned_by: 'library' }),
            'GET /api/ps': { body: { models: [{ name: 'llama3.1:8b', model: 'llama3.1:8b', context_length: 4096 }] } },
            'POST /api/show': { body: { model_info: { 'general.architecture': 'llama', 'llama.context_length': 131072 } } },
          },
        },
        want: {
          status: 'fail',
          message: '4096 tokens (Ollama GET /api/ps models[].context_length): below the 22000 the system prompt and tool definitions need',
        },
      },
    ],
    [
      'TGI: /info max_input_tokens, with /v1/models outside the key',
      {
        given: {
          modelId: 'tgi',
          routes: {
            'GET /v1/models': { ...modelsList({ id: 'tgi' }), public: true },
            'GET /info': { body: { model_id: 'Qwen/Qwen3-8B', max_input_tokens: 32767, max_total_tokens: 32768 } },
          },
        },
        want: { status: 'warn', message: '32767 tokens (TGI GET /info max_input_tokens): enough to start, below the recommended 32768' },
      },
    ],
    [
      'TGI without max_input_tokens: max_total_tokens',
      {
        given: { modelId: 'tgi', routes: { 'GET /v1/models': modelsList({ id: 'tgi' }), 'GET /info': { body: { max_total_tokens: 65536 } } } },
        want: { status: 'pass', message: '65536 tokens (TGI GET /info max_total_tokens)' },
      },
    ],
    [
      'LiteLLM: /v1/model/info max_input_tokens',
      {
        given: {
          modelId: 'local-qwen',
          routes: {
            'GET /v1/models': modelsList({ id: 'local-qwen', owned_by: 'openai' }),
            'GET /v1/model/info': { body: { data: [{ model_name: 'local-qwen', model_info: { max_input_tokens: 128000 } }] } },
          },
        },
        want: { status: 'pass', message: '128000 tokens (LiteLLM GET /v1/model/info data[].model_info.max_input_tokens)' },
      },
    ],
    [
      'llama.cpp training size alone is only a hint',
      {
        given: { modelId: 'qwen.gguf', routes: { 'GET /v1/models': modelsList({ id: 'qwen.gguf', meta: { n_ctx_train: 131072 } }) } },
        want: {
          status: 'warn',
          message:
            'the served context window is unknown (the model supports up to 131072 tokens per llama.cpp GET /v1/models data[].meta.n_ctx_train (training size), but the served window may be smaller)',
        },
      },
    ],
    [
      'an Ollama model whose maximum is already too small fails without /api/ps',
      {
        given: {
          modelId: 'tinyllama',
          routes: {
            'GET /v1/models': modelsList({ id: 'tinyllama' }),
            'POST /api/show': { body: { model_info: { 'general.architecture': 'llama', 'llama.context_length': 2048 } } },
          },
        },
        want: {
          status: 'fail',
          message:
            'the model supports at most 2048 tokens (Ollama POST /api/show model_info["<architecture>.context_length"] (model maximum)), below the 22000 the agent needs',
        },
      },
    ],
    [
      'a server that reports nothing',
      {
        given: { modelId: 'm', routes: { 'GET /v1/models': modelsList({ id: 'm' }) } },
        want: { status: 'warn', message: 'the served context window is unknown' },
      },
    ],
  ];

  test.each(cases)('%s', async (_name, { given, want }) => {
    const check = await judgeServer(given.routes, given.modelId);
    expect({ status: check.status, message: check.message }).toEqual(want);
  });

  test('an unknown window says how to find it', async () => {
    const check = await judgeServer({ 'GET /v1/models': modelsList({ id: 'm' }) }, 'm');
    expect(check.fix).toBe(
      'Pass --context-window N, reading N from the server: vLLM/SGLang GET /v1/models max_model_len, llama.cpp GET /props default_generation_settings.n_ctx, ' +
        'LM Studio GET /api/v0/models loaded_context_length, Ollama GET /api/ps context_length, TGI GET /info max_input_tokens, LiteLLM GET /v1/model/info max_input_tokens.',
    );
  });

  test('Ollama /api/show is asked for the model by name, and /v1/models is not fetched twice', async () => {
    const routes: FakeRoutes = {
      'GET /v1/models': modelsList({ id: 'llama3.1:8b' }),
      'POST /api/show': { body: { model_info: { 'general.architecture': 'llama', 'llama.context_length': 131072 } } },
    };
    await withServer(routes, async (server, access) => {
      const listing = await listServedModels(access);
      if (listing.kind !== 'listed') throw new Error('not listed');
      await discoverContextFigures(access, 'llama3.1:8b', listing.body);
      expect(server.requests.filter((request) => request.path === '/api/show').map((request) => request.body)).toEqual([{ model: 'llama3.1:8b' }]);
      expect(server.requests.filter((request) => request.path === '/v1/models')).toHaveLength(1);
      expect(server.requests.filter((request) => request.path === '/info')).toHaveLength(1);
    });
  });
});

describe('checkContextWindow thresholds', () => {
  const cases: Array<[string, { given: number; want: CheckStatus }]> = [
    ['4096, the old default, fails', { given: 4096, want: 'fail' }],
    ['21999 fails', { given: 21999, want: 'fail' }],
    ['22000 is the minimum and warns', { given: 22000, want: 'warn' }],
    ['32767 warns', { given: 32767, want: 'warn' }],
    ['32768 passes', { given: 32768, want: 'pass' }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(checkContextWindow([contextFigureFromFlag(given)]).status).toBe(want);
  });

  test('the flag is named as the source', () => {
    expect(checkContextWindow([contextFigureFromFlag(65536)])).toEqual({
      name: 'context window',
      status: 'pass',
      message: '65536 tokens (--context-window)',
      source: '--context-window',
    });
  });

  test('a served figure decides even when an upper bound is listed first', () => {
    const figures: ContextFigure[] = [
      { tokens: 131072, source: 'training size', kind: 'upper-bound' },
      { tokens: 8192, source: 'served', kind: 'served' },
    ];
    expect(checkContextWindow(figures).status).toBe('fail');
  });
});
