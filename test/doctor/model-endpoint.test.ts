import {
  checkBaseUrl,
  checkModelHost,
  checkModelId,
  checkModelString,
  listServedModels,
  probeToolUse,
  readBaseUrl,
  type EndpointAccess,
  type ModelEndpoint,
} from '../../src/doctor/model-endpoint';
import type { Check, CheckStatus } from '../../src/doctor/report';
import {
  modelsList,
  plainReply,
  startFakeModelServer,
  startSilentServer,
  toolCallReply,
  unusedBaseUrl,
  withFakeModelServer,
  type FakeModelServer,
  type FakeRoutes,
} from './fake-model-server';

const API_KEY = 'sk-doctor-test-key';

function accessTo(baseUrl: string, apiKey = API_KEY, timeoutMs = 2000): EndpointAccess {
  const reading = readBaseUrl(baseUrl);
  if (!reading.ok) throw new Error(reading.problem);
  return { endpoint: reading.endpoint, apiKey, timeoutMs };
}

describe('checkModelString', () => {
  const cases: Array<[string, { given: string; want: { status: CheckStatus; modelId: string } }]> = [
    ['accepts openai/<id>', { given: 'openai/Qwen/Qwen3-Coder-30B', want: { status: 'pass', modelId: 'Qwen/Qwen3-Coder-30B' } }],
    ['fails without the prefix, keeping the id for comparison', { given: 'qwen3-coder', want: { status: 'fail', modelId: 'qwen3-coder' } }],
    ['fails on another provider prefix', { given: 'ollama/llama3.1', want: { status: 'fail', modelId: 'ollama/llama3.1' } }],
    ['fails on the bare prefix', { given: 'openai/', want: { status: 'fail', modelId: '' } }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const { modelId, check } = checkModelString(given);
    expect({ status: check.status, modelId }).toEqual(want);
  });

  test('the failure says how to write it', () => {
    expect(checkModelString('qwen3-coder').check).toEqual({
      name: 'model string',
      status: 'fail',
      message: '"qwen3-coder" lacks the required openai/ prefix',
      fix: 'Write it as --model openai/qwen3-coder, the id exactly as GET /v1/models lists it.',
    });
  });
});

describe('readBaseUrl', () => {
  const accepted: Array<[string, { given: string; want: ModelEndpoint }]> = [
    [
      'an IPv4 host and port',
      {
        given: 'http://192.168.1.20:8000/v1',
        want: { baseUrl: 'http://192.168.1.20:8000/v1', serverRoot: 'http://192.168.1.20:8000', hostname: '192.168.1.20' },
      },
    ],
    [
      'https with a trailing slash',
      {
        given: 'https://llm.internal:8443/v1/',
        want: { baseUrl: 'https://llm.internal:8443/v1', serverRoot: 'https://llm.internal:8443', hostname: 'llm.internal' },
      },
    ],
    [
      'a bracketed IPv6 host',
      { given: 'http://[::1]:8080/v1', want: { baseUrl: 'http://[::1]:8080/v1', serverRoot: 'http://[::1]:8080', hostname: '[::1]' } },
    ],
  ];
  test.each(accepted)('accepts %s', (_name, { given, want }) => {
    expect(readBaseUrl(given)).toEqual({ ok: true, endpoint: want });
  });

  const rejected: Array<[string, { given: string; want: string }]> = [
    ['a missing port', { given: 'http://192.168.1.20/v1', want: 'names no port' }],
    ['a missing /v1', { given: 'http://192.168.1.20:8000', want: 'instead of /v1' }],
    ['a deeper path', { given: 'http://192.168.1.20:8000/v1/chat/completions', want: 'instead of /v1' }],
    ['another scheme', { given: 'ftp://192.168.1.20:8000/v1', want: 'uses ftp' }],
    ['text that is not a URL', { given: '192.168.1.20:8000/v1', want: 'is not a URL' }],
    ['credentials in the URL', { given: 'http://user:secret@192.168.1.20:8000/v1', want: 'carries credentials' }],
    ['a query string', { given: 'http://192.168.1.20:8000/v1?key=1', want: 'has a query' }],
  ];
  test.each(rejected)('rejects %s', (_name, { given, want }) => {
    const reading = readBaseUrl(given);
    expect(reading.ok).toBe(false);
    const check = checkBaseUrl(reading);
    expect(check).toMatchObject({
      name: 'base URL',
      status: 'fail',
      fix: 'Pass --base-url in the form http://<host>:<port>/v1, for example http://192.168.1.20:8000/v1.',
    });
    expect(check.message).toContain(want);
  });

  test('a rejected URL never echoes its password', () => {
    expect(checkBaseUrl(readBaseUrl('http://user:hunter22@h:8000/v1')).message).not.toContain('hunter22');
  });
});

describe('checkModelHost', () => {
  const cases: Array<[string, { given: string; want: CheckStatus }]> = [
    ['localhost', { given: 'http://localhost:8000/v1', want: 'warn' }],
    ['127.0.0.1', { given: 'http://127.0.0.1:8000/v1', want: 'warn' }],
    ['anywhere in 127/8', { given: 'http://127.3.2.1:8000/v1', want: 'warn' }],
    ['::1', { given: 'http://[::1]:8000/v1', want: 'warn' }],
    ['0.0.0.0 as a destination', { given: 'http://0.0.0.0:8000/v1', want: 'warn' }],
    ['a LAN address', { given: 'http://192.168.1.20:8000/v1', want: 'pass' }],
    ['the Docker host alias', { given: 'http://host.docker.internal:8000/v1', want: 'pass' }],
    ['a name that merely starts with 127', { given: 'http://127.example.com:8000/v1', want: 'pass' }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const reading = readBaseUrl(given);
    if (!reading.ok) throw new Error(reading.problem);
    expect(checkModelHost(reading.endpoint).status).toBe(want);
  });

  test('the loopback warning says to listen on 0.0.0.0', () => {
    const reading = readBaseUrl('http://localhost:8000/v1');
    if (!reading.ok) throw new Error(reading.problem);
    expect(checkModelHost(reading.endpoint)).toEqual({
      name: 'model server host',
      status: 'warn',
      message: 'localhost is a loopback address: a container on the same host cannot reach it',
      fix: "Start the model server listening on 0.0.0.0 and use the machine's network address (from Docker, host.docker.internal) in --base-url.",
    });
  });
});

describe('checkModelId', () => {
  const cases: Array<[string, { given: { id: string; served: string[] }; want: Check }]> = [
    [
      'passes for a served id',
      { given: { id: 'qwen3', served: ['qwen3'] }, want: { name: 'model id', status: 'pass', message: '"qwen3" is served' } },
    ],
    [
      'fails and lists what is served',
      {
        given: { id: 'qwen3', served: ['Qwen/Qwen3-8B', 'llama3.1:8b'] },
        want: {
          name: 'model id',
          status: 'fail',
          message: '"qwen3" is not served; the server lists "Qwen/Qwen3-8B", "llama3.1:8b"',
          fix: 'Use one of the listed ids exactly, as in --model openai/Qwen/Qwen3-8B.',
        },
      },
    ],
    [
      'fails when nothing is loaded',
      {
        given: { id: 'qwen3', served: [] },
        want: {
          name: 'model id',
          status: 'fail',
          message: 'the server lists no models, so "qwen3" is not served',
          fix: 'Load the model on the model server, then rerun the doctor.',
        },
      },
    ],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(checkModelId(given.id, given.served)).toEqual(want);
  });
});

describe('listServedModels against a real server', () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer({
      apiKey: API_KEY,
      routes: { 'GET /v1/models': modelsList({ id: 'qwen3', owned_by: 'vllm' }, { id: 'llama3' }) },
    });
  });
  afterAll(() => server.close());

  test('lists the served ids, sending the key as a Bearer token', async () => {
    const listing = await listServedModels(accessTo(server.baseUrl));
    expect(listing).toMatchObject({ kind: 'listed', url: `${server.baseUrl}/models`, ids: ['qwen3', 'llama3'] });
    expect(server.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/models', authorization: `Bearer ${API_KEY}` });
  });

  test('a wrong key is a failure that says the key differs, without printing it', async () => {
    const listing = await listServedModels(accessTo(server.baseUrl, 'sk-wrong-key-123'));
    expect(listing).toEqual({
      kind: 'failed',
      check: {
        name: 'endpoint and key',
        status: 'fail',
        message: `${server.baseUrl}/models answered HTTP 401: the API key differs from the one the model server was started with`,
        fix: 'Pass --api-key with the key the model server was started with (its --api-key option, or a LiteLLM virtual key).',
        source: `${server.baseUrl}/models`,
      },
    });
  });
});

describe('a wrong key, as each server flavour answers it', () => {
  const cases: Array<[string, { given: unknown }]> = [
    ['vLLM/SGLang', { given: { error: 'Unauthorized' } }],
    ['llama.cpp', { given: { error: { code: 401, message: 'Invalid API Key', type: 'authentication_error' } } }],
    [
      'LiteLLM',
      {
        given: {
          error: { message: 'Authentication Error, Invalid proxy server token passed.', type: 'token_not_found_in_db', param: 'None', code: '401' },
        },
      },
    ],
    ['TGI (bare 401)', { given: '' }],
  ];
  test.each(cases)('%s', async (_name, { given }) => {
    const options = { apiKey: API_KEY, unauthorizedBody: given, routes: { 'GET /v1/models': modelsList({ id: 'qwen3' }) } };
    await withFakeModelServer(options, async (server) => {
      const listing = await listServedModels(accessTo(server.baseUrl, 'sk-wrong-key-123'));
      expect(listing.kind === 'failed' && listing.check).toMatchObject({
        status: 'fail',
        message: `${server.baseUrl}/models answered HTTP 401: the API key differs from the one the model server was started with`,
      });
    });
  });
});

describe('listServedModels failures', () => {
  test('403 also means the key is wrong', async () => {
    await withFakeModelServer({ apiKey: API_KEY, routes: { 'GET /v1/models': { status: 403, body: { error: 'Forbidden' } } } }, async (server) => {
      const listing = await listServedModels(accessTo(server.baseUrl));
      expect(listing.kind === 'failed' && listing.check.message).toContain('answered HTTP 403: the API key differs');
    });
  });

  test('an unreachable endpoint names the address tried', async () => {
    const baseUrl = await unusedBaseUrl();
    const listing = await listServedModels(accessTo(baseUrl));
    expect(listing).toMatchObject({ kind: 'failed', check: { status: 'fail', message: `could not reach ${baseUrl}/models (ECONNREFUSED)` } });
  });

  test('a silent endpoint times out instead of hanging', async () => {
    const silent = await startSilentServer();
    try {
      const started = Date.now();
      const listing = await listServedModels(accessTo(silent.baseUrl, API_KEY, 200));
      expect(listing).toMatchObject({
        kind: 'failed',
        check: { status: 'fail', message: `could not reach ${silent.baseUrl}/models (no answer within 0.2 s)` },
      });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await silent.close();
    }
  });

  const wrongAnswers: Array<[string, { given: FakeRoutes; want: string }]> = [
    ['a 404 (base URL pointing elsewhere)', { given: {}, want: 'answered HTTP 404: {"detail":"Not Found"}' }],
    [
      'a 200 that is not a models list',
      { given: { 'GET /v1/models': { body: '<html>dashboard</html>' } }, want: 'did not answer with an OpenAI models list' },
    ],
  ];
  test.each(wrongAnswers)('fails on %s', async (_name, { given, want }) => {
    await withFakeModelServer({ apiKey: API_KEY, routes: given }, async (server) => {
      const listing = await listServedModels(accessTo(server.baseUrl));
      expect(listing.kind).toBe('failed');
      expect(listing.kind === 'failed' && listing.check.message).toContain(want);
    });
  });
});

describe('probeToolUse', () => {
  const cases: Array<[string, { given: FakeRoutes[string]; want: { status: CheckStatus; message: string; fix?: string } }]> = [
    [
      'passes when the model calls the tool',
      { given: toolCallReply('get_weather'), want: { status: 'pass', message: 'the model answered with a call to get_weather' } },
    ],
    [
      'warns when the model answers in prose',
      {
        given: plainReply('I cannot check the weather, but Paris is usually mild.'),
        want: {
          status: 'warn',
          message: 'asked to use get_weather, the model answered without a tool call: it may not use tools reliably',
          fix: 'Use a different model with reliable tool calling; this one may act like a chatbot, refuse tools or fail tool calls.',
        },
      },
    ],
    [
      'warns about the parser when the tool call is left in the text',
      {
        given: plainReply('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'),
        want: {
          status: 'warn',
          message: 'asked to use get_weather, the model answered without a tool call: it may not use tools reliably',
          fix: 'The reply text names the tool, so the server may not parse tool calls: set its tool-call parser (vLLM --tool-call-parser, llama.cpp --jinja) or use a different model.',
        },
      },
    ],
    [
      'warns when the model calls another tool',
      {
        given: toolCallReply('search_web'),
        want: {
          status: 'warn',
          message: 'asked to use get_weather, the model called search_web instead of get_weather: it may not use tools reliably',
          fix: expect.any(String) as unknown as string,
        },
      },
    ],
    [
      'fails when the server rejects tools',
      {
        given: {
          status: 400,
          body: { error: { message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set' } },
        },
        want: {
          status: 'fail',
          message: expect.stringContaining(
            'answered HTTP 400: {"error":{"message":"\\"auto\\" tool choice requires --enable-auto-tool-choice',
          ) as unknown as string,
          fix: 'Enable tool calling on the model server (vLLM/SGLang: --enable-auto-tool-choice with a --tool-call-parser; llama.cpp: --jinja).',
        },
      },
    ],
  ];
  test.each(cases)('%s', async (_name, { given, want }) => {
    await withFakeModelServer({ apiKey: API_KEY, routes: { 'POST /v1/chat/completions': given } }, async (server) => {
      const check = await probeToolUse(accessTo(server.baseUrl), 'qwen3');
      expect(check).toMatchObject({ name: 'tool use', ...want, source: `${server.baseUrl}/chat/completions` });
    });
  });

  test('sends one chat completion with one tool and a prompt that needs it', async () => {
    await withFakeModelServer({ apiKey: API_KEY, routes: { 'POST /v1/chat/completions': toolCallReply('get_weather') } }, async (server) => {
      await probeToolUse(accessTo(server.baseUrl), 'qwen3');
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.body).toMatchObject({
        model: 'qwen3',
        tools: [{ type: 'function', function: { name: 'get_weather' } }],
        messages: expect.arrayContaining([expect.objectContaining({ role: 'user', content: expect.stringContaining('get_weather') })]),
      });
    });
  });

  test('a rejected key fails as a key problem', async () => {
    await withFakeModelServer({ apiKey: 'the-real-key', routes: { 'POST /v1/chat/completions': toolCallReply('get_weather') } }, async (server) => {
      const check = await probeToolUse(accessTo(server.baseUrl), 'qwen3');
      expect(check).toMatchObject({ status: 'fail', message: expect.stringContaining('answered HTTP 401: the API key differs') });
    });
  });
});
