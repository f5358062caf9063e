import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { interpretContractFlags, type ContractFlagValues } from '../../src/kit/run/arguments';

/* Flags to run options: every bad-argument case names the flag and what to pass. */
let directory: string;
let manifest: string;
beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'contract-arguments-'));
  manifest = path.join(directory, 'manifest.json');
  writeFileSync(manifest, JSON.stringify({ conversationId: '8f1a2b3c4d5e4f708192a3b4c5d6e7f8', events: [] }));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const BASE: ContractFlagValues = { 'base-url': 'http://127.0.0.1:8000', 'conversation-id': '8f1a2b3c4d5e4f708192a3b4c5d6e7f8' };
const interpret = (values: ContractFlagValues, env: Record<string, string> = {}) => interpretContractFlags(values, env, () => 1234);

it('defaults: both levels, a random seed that is kept, bounded traffic', () => {
  const interpreted = interpret(BASE);
  expect(interpreted.kind).toBe('run');
  if (interpreted.kind !== 'run') return;
  expect(interpreted.invocation.run).toMatchObject({ levels: ['seed', 'reference'], seed: 1234, runs: 20, maxRequests: 2000, timeoutMs: 10000 });
  expect(interpreted.invocation.run.sessionApiKey).toBeUndefined();
});

it('--fixture names the conversation when --conversation-id is left out', () => {
  const interpreted = interpret({ 'base-url': BASE['base-url'], fixture: manifest });
  expect(interpreted.kind === 'run' && interpreted.invocation.run.conversationId).toBe('8f1a2b3c4d5e4f708192a3b4c5d6e7f8');
});

it('the session key comes from the flag, else from SESSION_API_KEY', () => {
  const fromEnv = interpret(BASE, { SESSION_API_KEY: 'from-env' });
  const fromFlag = interpret({ ...BASE, 'session-api-key': 'from-flag' }, { SESSION_API_KEY: 'from-env' });
  expect(fromEnv.kind === 'run' && fromEnv.invocation.run.sessionApiKey).toBe('from-env');
  expect(fromFlag.kind === 'run' && fromFlag.invocation.run.sessionApiKey).toBe('from-flag');
});

it.each<[string, ContractFlagValues, string]>([
  ['no base URL', { 'conversation-id': 'x' }, '--base-url is required'],
  ['a base URL that is not http', { ...BASE, 'base-url': 'ftp://x' }, '--base-url must be an http(s) URL'],
  ['no conversation', { 'base-url': BASE['base-url'] }, '--conversation-id is required (or --fixture MANIFEST'],
  ['a bad level', { ...BASE, level: 'all' }, '--level must be seed, reference or both'],
  ['a bad seed', { ...BASE, seed: '-1' }, '--seed must be a whole number'],
  ['too many runs', { ...BASE, runs: '5000' }, '--runs must be a whole number from 1 to 1000'],
  ['a tiny budget', { ...BASE, 'max-requests': '10' }, '--max-requests must be a whole number of at least 50'],
  ['a missing manifest', { ...BASE, fixture: '/nonexistent/manifest.json' }, 'cannot read the fixture manifest /nonexistent/manifest.json'],
  ['a bad compare URL', { ...BASE, compare: 'localhost:8001' }, '--compare must be an http(s) URL'],
])('invalid: %s', (_name, values, message) => {
  const interpreted = interpret(values);
  expect(interpreted).toEqual({ kind: 'invalid', message: expect.stringContaining(message) });
});
