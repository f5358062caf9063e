import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { modelsList, startFakeModelServer, toolCallReply, type FakeModelServer } from './fake-model-server';
import { HEALTHY_TOOLS, makeFakeToolDir } from './fake-tools';

const REPO_ROOT = join(__dirname, '..', '..');
const TSX = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
const SECRET = 'sk-cli-secret-7f3a9c';
const WRONG_KEY = 'sk-cli-wrong-key-0b1d';

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

let server: FakeModelServer;
let tools: { dir: string; remove: () => Promise<void> };
let workDir: string;

/** Runs the real CLI as `npx tsx src/cli/doctor.ts ...` would, with the fake tools first on PATH. */
function runCli(args: string[]): Promise<CliRun> {
  const env = { ...process.env, PATH: `${tools.dir}${delimiter}${process.env['PATH'] ?? ''}` };
  return new Promise((resolve) => {
    execFile(TSX, ['src/cli/doctor.ts', ...args], { cwd: REPO_ROOT, env, timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  server = await startFakeModelServer({
    apiKey: SECRET,
    routes: {
      'GET /v1/models': modelsList({ id: 'qwen3', owned_by: 'vllm', max_model_len: 32768 }),
      'POST /v1/chat/completions': toolCallReply('get_weather'),
    },
  });
  tools = await makeFakeToolDir(HEALTHY_TOOLS);
  workDir = await mkdtemp(join(tmpdir(), 'doctor-cli-'));
});

afterAll(async () => {
  await server.close();
  await tools.remove();
  await rm(workDir, { recursive: true, force: true });
});

test('the CLI exits 0, 1 and 2 as documented and never prints the API key', async () => {
  const notYaml = join(workDir, 'notes.txt');
  await writeFile(notYaml, 'remember to install helm 4\n');
  const model = (key: string): string[] => ['--model', 'openai/qwen3', '--base-url', server.baseUrl, '--api-key', key];

  const [healthy, wrongKey, missingFlag, unknownFlag, valuesOnly, notYamlValues] = await Promise.all([
    runCli([...model(SECRET), '--probe-tools', '--json']),
    runCli(model(WRONG_KEY)),
    runCli(['--model', 'openai/qwen3', '--api-key', SECRET]),
    runCli([`--api-key=${SECRET}`, SECRET, '--bogus']),
    runCli(['--values', join(__dirname, 'fixtures', 'good-values.yaml')]),
    runCli(['--values', notYaml]),
  ]);

  expect(healthy).toMatchObject({ code: 0, stderr: '' });
  const report = JSON.parse(healthy.stdout) as { ok: boolean; summary: unknown; checks: Array<{ name: string; status: string }> };
  expect(report).toMatchObject({ ok: true, summary: { pass: 6, warn: 1, fail: 0 } });
  expect(report.checks.find((check) => check.name === 'tool use')).toMatchObject({
    status: 'pass',
    message: 'the model answered with a call to get_weather',
  });

  expect(wrongKey.code).toBe(1);
  expect(wrongKey.stdout).toContain('WARN  model server host: 127.0.0.1 is a loopback address');
  expect(wrongKey.stdout).toContain('FAIL  endpoint and key: ');
  expect(wrongKey.stdout).toContain('answered HTTP 401: the API key differs from the one the model server was started with');

  expect(missingFlag).toMatchObject({ code: 2, stdout: '' });
  expect(missingFlag.stderr).toContain('doctor: --model, --base-url and --api-key go together; missing --base-url.');

  expect(unknownFlag).toMatchObject({ code: 2, stdout: '' });
  expect(unknownFlag.stderr).toContain("doctor: Unexpected argument '***'");

  expect(valuesOnly.code).toBe(0);
  expect(valuesOnly.stdout).toContain('PASS  storage class: runtime-api.env.STORAGE_CLASS "standard" exists in the cluster');
  expect(valuesOnly.stdout).toContain('11 passed, 0 warnings, 0 failed');

  expect(notYamlValues).toMatchObject({ code: 2, stdout: '' });
  expect(notYamlValues.stderr).toContain('notes.txt is not a YAML mapping of chart values');

  for (const run of [healthy, wrongKey, missingFlag, unknownFlag]) {
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    expect(run.stdout + run.stderr).not.toContain(WRONG_KEY);
  }
});
