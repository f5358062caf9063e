import { join } from 'node:path';
import { createCommandRunner } from '../../src/doctor/command-runner';
import { runDoctor, type DoctorDependencies, type DoctorOptions } from '../../src/doctor/doctor';
import type { Check } from '../../src/doctor/report';
import { modelsList, toolCallReply, unusedBaseUrl, withFakeModelServer, type FakeModelServer, type FakeRoutes } from './fake-model-server';
import { HEALTHY_TOOLS, makeFakeToolDir } from './fake-tools';

const API_KEY = 'sk-orchestration-key-42';
const GOOD_VALUES_FILE = join(__dirname, 'fixtures', 'good-values.yaml');

let tools: { dir: string; remove: () => Promise<void> };
let dependencies: DoctorDependencies;
beforeAll(async () => {
  tools = await makeFakeToolDir(HEALTHY_TOOLS);
  dependencies = { runCommand: createCommandRunner({ searchPath: tools.dir }), requestTimeoutMs: 2000, probeTimeoutMs: 2000 };
});
afterAll(() => tools.remove());

const VLLM_ROUTES: FakeRoutes = {
  'GET /v1/models': modelsList({ id: 'qwen3', owned_by: 'vllm', max_model_len: 32768 }),
  'POST /v1/chat/completions': toolCallReply('get_weather'),
};

function withServer<T>(routes: FakeRoutes, use: (server: FakeModelServer) => Promise<T>): Promise<T> {
  return withFakeModelServer({ apiKey: API_KEY, routes }, use);
}

async function checksFor(options: DoctorOptions): Promise<Check[]> {
  const outcome = await runDoctor(options, dependencies);
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.checks;
}

const statuses = (checks: Check[]): string[][] => checks.map((check) => [check.name, check.status]);

describe('runDoctor model checks', () => {
  test('a healthy vLLM on loopback: everything passes but the loopback warning', async () => {
    await withServer(VLLM_ROUTES, async (server) => {
      const checks = await checksFor({ model: { model: 'openai/qwen3', baseUrl: server.baseUrl, apiKey: API_KEY }, probeTools: true });
      expect(statuses(checks)).toEqual([
        ['model string', 'pass'],
        ['base URL', 'pass'],
        ['model server host', 'warn'],
        ['endpoint and key', 'pass'],
        ['model id', 'pass'],
        ['context window', 'pass'],
        ['tool use', 'pass'],
      ]);
      expect(server.requests.filter((request) => request.path === '/v1/models')).toHaveLength(1);
    });
  });

  test('an unusable base URL skips the endpoint checks but still judges a given context window', async () => {
    const checks = await checksFor({
      model: { model: 'openai/qwen3', baseUrl: 'http://10.0.0.5/v1', apiKey: API_KEY },
      contextWindow: 8192,
      probeTools: true,
    });
    expect(statuses(checks)).toEqual([
      ['model string', 'pass'],
      ['base URL', 'fail'],
      ['context window', 'fail'],
      ['tool use', 'warn'],
    ]);
    expect(checks[3]?.message).toBe('not checked: the base URL is not usable');
  });

  test('an unreachable endpoint fails once and leaves the rest unchecked', async () => {
    const checks = await checksFor({ model: { model: 'openai/qwen3', baseUrl: await unusedBaseUrl(), apiKey: API_KEY } });
    expect(statuses(checks)).toEqual([
      ['model string', 'pass'],
      ['base URL', 'pass'],
      ['model server host', 'warn'],
      ['endpoint and key', 'fail'],
      ['context window', 'warn'],
    ]);
  });

  test('a model id the server does not serve is not probed for tools', async () => {
    await withServer(VLLM_ROUTES, async (server) => {
      const checks = await checksFor({ model: { model: 'openai/llama3', baseUrl: server.baseUrl, apiKey: API_KEY }, probeTools: true });
      expect(checks.find((check) => check.name === 'tool use')?.message).toBe('not checked: the model id is not served');
      expect(server.requests.some((request) => request.path === '/v1/chat/completions')).toBe(false);
    });
  });

  test('--context-window wins over the server and saves the lookups', async () => {
    const routes: FakeRoutes = {
      'GET /v1/models': modelsList({ id: 'qwen3' }),
      'GET /props': { body: { default_generation_settings: { n_ctx: 4096 } } },
    };
    await withServer(routes, async (server) => {
      const checks = await checksFor({ model: { model: 'openai/qwen3', baseUrl: server.baseUrl, apiKey: API_KEY }, contextWindow: 65536 });
      expect(checks.find((check) => check.name === 'context window')).toEqual({
        name: 'context window',
        status: 'pass',
        message: '65536 tokens (--context-window)',
        source: '--context-window',
      });
      expect(server.requests.map((request) => request.path)).toEqual(['/v1/models']);
    });
  });

  test('the API key is masked even when a server echoes it', async () => {
    const routes: FakeRoutes = {
      'GET /v1/models': modelsList({ id: 'qwen3', max_model_len: 32768 }),
      'POST /v1/chat/completions': { status: 500, body: { error: `upstream refused token ${API_KEY}` } },
    };
    await withServer(routes, async (server) => {
      const checks = await checksFor({ model: { model: 'openai/qwen3', baseUrl: server.baseUrl, apiKey: API_KEY }, probeTools: true });
      expect(JSON.stringify(checks)).not.toContain(API_KEY);
      expect(checks.find((check) => check.name === 'tool use')?.message).toContain('upstream refused token ***');
    });
  });
});

describe('runDoctor with values', () => {
  test('model and values checks run together, model checks first', async () => {
    await withServer(VLLM_ROUTES, async (server) => {
      const checks = await checksFor({ model: { model: 'openai/qwen3', baseUrl: server.baseUrl, apiKey: API_KEY }, valuesFile: GOOD_VALUES_FILE });
      expect(checks.map((check) => check.name).slice(4, 8)).toEqual(['model id', 'context window', 'sandbox URL pattern', 'sandbox base domain']);
      expect(checks.at(-1)?.name).toBe('helm version');
    });
  });

  test('a missing values file stops the run before any request', async () => {
    await withServer(VLLM_ROUTES, async (server) => {
      const outcome = await runDoctor(
        { model: { model: 'openai/qwen3', baseUrl: server.baseUrl, apiKey: API_KEY }, valuesFile: '/nonexistent/values.yaml' },
        dependencies,
      );
      expect(outcome).toEqual({
        ok: false,
        error: 'values file /nonexistent/values.yaml does not exist. Pass the path of your Helm values file with --values.',
      });
      expect(server.requests).toEqual([]);
    });
  });
});
