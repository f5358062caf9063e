import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { createCommandRunner } from '../../src/doctor/command-runner';
import { isRecord } from '../../src/doctor/data-path';
import { runDoctor, type DoctorDependencies } from '../../src/doctor/doctor';
import type { Check, CheckStatus } from '../../src/doctor/report';
import { HEALTHY_TOOLS, makeFakeToolDir, type FakeTools } from './fake-tools';

type Values = Record<string, unknown>;
/** A change to the good values: nested objects merge, `undefined` removes a key. */
type Patch = Record<string, unknown>;

const GOOD_VALUES_FILE = join(__dirname, 'fixtures', 'good-values.yaml');
const EVALUATION_VALUES_FILE = join(__dirname, 'fixtures', 'evaluation-values.yaml');

let goodValues: Values;
let workDir: string;
const toolDirs = new Map<FakeTools, { dir: string; remove: () => Promise<void> }>();

beforeAll(async () => {
  goodValues = parse(await readFile(GOOD_VALUES_FILE, 'utf8')) as Values;
  workDir = await mkdtemp(join(tmpdir(), 'doctor-values-'));
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
  await Promise.all([...toolDirs.values()].map((tools) => tools.remove()));
});

function applyPatch(base: Values, patch: Patch): Values {
  const merged: Values = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = merged[key];
    if (value === undefined) delete merged[key];
    else merged[key] = isRecord(value) && isRecord(current) ? applyPatch(current, value) : value;
  }
  return merged;
}

async function dependenciesWith(tools: FakeTools): Promise<DoctorDependencies> {
  let fake = toolDirs.get(tools);
  if (fake === undefined) {
    fake = await makeFakeToolDir(tools);
    toolDirs.set(tools, fake);
  }
  return { runCommand: createCommandRunner({ searchPath: fake.dir }), requestTimeoutMs: 1000, probeTimeoutMs: 1000 };
}

let fileCounter = 0;

/** Writes the values to a fresh file and runs the doctor on it alone, as `--values FILE` does. */
async function doctorOnValues(values: Values, tools: FakeTools = HEALTHY_TOOLS): Promise<Check[]> {
  fileCounter += 1;
  const file = join(workDir, `values-${fileCounter}.yaml`);
  await writeFile(file, stringify(values));
  const outcome = await runDoctor({ valuesFile: file }, await dependenciesWith(tools));
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.checks;
}

function findCheck(checks: Check[], name: string): Check {
  const check = checks.find((candidate) => candidate.name === name);
  if (check === undefined) throw new Error(`no "${name}" check among ${checks.map((c) => c.name).join(', ')}`);
  return check;
}

interface Want {
  check: string;
  status: CheckStatus;
  source?: string;
  message: string;
  fix?: string;
}

const PATTERN = 'env.RUNTIME_URL_PATTERN';
const BASE = 'runtime-api.env.RUNTIME_BASE_URL';
const SSL = 'runtime-api.env.RUNTIME_DISABLE_SSL';
const STORAGE = 'runtime-api.env.STORAGE_CLASS';
const DASH_SEPARATOR: Patch = { 'runtime-api': { env: { RUNTIME_URL_SEPARATOR: '-' } } };

const rules: Array<[string, { given: { patch: Patch; tools?: FakeTools }; want: Want }]> = [
  [
    'pattern: the good one passes',
    {
      given: { patch: {} },
      want: { check: 'sandbox URL pattern', status: 'pass', source: PATTERN, message: `${PATTERN} is "https://{runtime_id}.runtime.acme.dev"` },
    },
  ],
  [
    'pattern: unset fails on the placeholder default and suggests the value',
    {
      given: { patch: { env: { RUNTIME_URL_PATTERN: undefined } } },
      want: {
        check: 'sandbox URL pattern',
        status: 'fail',
        source: PATTERN,
        message: `${PATTERN} is unset, so the chart default "https://{runtime_id}.runtime.app.example.com", a placeholder, applies`,
        fix: `Set ${PATTERN} to "https://{runtime_id}.runtime.acme.dev".`,
      },
    },
  ],
  [
    'pattern: http fails',
    {
      given: { patch: { env: { RUNTIME_URL_PATTERN: 'http://{runtime_id}.runtime.acme.dev' } } },
      want: { check: 'sandbox URL pattern', status: 'fail', source: PATTERN, message: 'uses http' },
    },
  ],
  [
    'pattern: without {runtime_id} fails',
    {
      given: { patch: { env: { RUNTIME_URL_PATTERN: 'https://sandbox.runtime.acme.dev' } } },
      want: { check: 'sandbox URL pattern', status: 'fail', message: 'does not start with https://{runtime_id}' },
    },
  ],
  [
    'pattern: a path after the domain fails',
    {
      given: { patch: { env: { RUNTIME_URL_PATTERN: 'https://{runtime_id}.runtime.acme.dev/' } } },
      want: { check: 'sandbox URL pattern', status: 'fail', message: 'has "runtime.acme.dev/" after {runtime_id}., which is not a bare domain' },
    },
  ],
  [
    'pattern: the "-" separator gives {runtime_id}-<domain>',
    {
      given: { patch: { ...DASH_SEPARATOR, env: { RUNTIME_URL_PATTERN: 'https://{runtime_id}-runtime.acme.dev' } } },
      want: { check: 'sandbox URL pattern', status: 'pass', message: `${PATTERN} is "https://{runtime_id}-runtime.acme.dev"` },
    },
  ],
  [
    'pattern: a "." pattern with the "-" separator fails',
    {
      given: { patch: DASH_SEPARATOR },
      want: {
        check: 'sandbox URL pattern',
        status: 'fail',
        message: 'follows {runtime_id} with ".", but runtime-api.env.RUNTIME_URL_SEPARATOR is "-"',
        fix: `Set ${PATTERN} to "https://{runtime_id}-runtime.acme.dev".`,
      },
    },
  ],
  [
    'pattern: a separator no host name allows fails',
    {
      given: { patch: { 'runtime-api': { env: { RUNTIME_URL_SEPARATOR: '_' } } } },
      want: { check: 'sandbox URL pattern', status: 'fail', message: 'allows only "." or "-"' },
    },
  ],
  [
    'pattern: set only under runtime-api.env is read there and named',
    {
      given: {
        patch: { env: { RUNTIME_URL_PATTERN: undefined }, 'runtime-api': { env: { RUNTIME_URL_PATTERN: 'https://{runtime_id}.runtime.acme.dev' } } },
      },
      want: {
        check: 'sandbox URL pattern',
        status: 'pass',
        source: 'runtime-api.env.RUNTIME_URL_PATTERN',
        message: 'runtime-api.env.RUNTIME_URL_PATTERN is "https://{runtime_id}.runtime.acme.dev"',
      },
    },
  ],

  [
    'base domain: matching passes',
    {
      given: { patch: {} },
      want: { check: 'sandbox base domain', status: 'pass', source: BASE, message: `${BASE} "runtime.acme.dev" matches the domain of ${PATTERN}` },
    },
  ],
  [
    'base domain: matching ignores case',
    {
      given: { patch: { 'runtime-api': { env: { RUNTIME_BASE_URL: 'Runtime.ACME.dev' } } } },
      want: { check: 'sandbox base domain', status: 'pass', message: 'matches the domain' },
    },
  ],
  [
    'base domain: unset fails and names the domain to use',
    {
      given: { patch: { 'runtime-api': { env: { RUNTIME_BASE_URL: undefined } } } },
      want: {
        check: 'sandbox base domain',
        status: 'fail',
        source: BASE,
        message: `${BASE} is unset`,
        fix: `Set ${BASE} to "runtime.acme.dev", the domain in ${PATTERN}.`,
      },
    },
  ],
  [
    'base domain: a different domain fails',
    {
      given: { patch: { 'runtime-api': { env: { RUNTIME_BASE_URL: 'sandboxes.acme.dev' } } } },
      want: {
        check: 'sandbox base domain',
        status: 'fail',
        source: BASE,
        message: `${BASE} is "sandboxes.acme.dev" but ${PATTERN} points at "runtime.acme.dev"`,
      },
    },
  ],
  [
    'base domain: compared with the chart default when the pattern is unset',
    {
      given: { patch: { env: { RUNTIME_URL_PATTERN: undefined } } },
      want: { check: 'sandbox base domain', status: 'fail', message: `${PATTERN} (unset, chart default) points at "runtime.app.example.com"` },
    },
  ],
  [
    'base domain: a URL instead of a domain fails',
    {
      given: { patch: { 'runtime-api': { env: { RUNTIME_BASE_URL: 'https://runtime.acme.dev' } } } },
      want: { check: 'sandbox base domain', status: 'fail', message: 'is not a bare domain' },
    },
  ],
  [
    'base domain: not compared with an unusable pattern',
    {
      given: { patch: { env: { RUNTIME_URL_PATTERN: 'https://sandbox.acme.dev' } } },
      want: { check: 'sandbox base domain', status: 'warn', message: 'not compared' },
    },
  ],
  [
    'base domain: set under env only is read there and named',
    {
      given: { patch: { env: { RUNTIME_BASE_URL: 'runtime.acme.dev' }, 'runtime-api': { env: { RUNTIME_BASE_URL: undefined } } } },
      want: {
        check: 'sandbox base domain',
        status: 'pass',
        source: 'env.RUNTIME_BASE_URL',
        message: 'env.RUNTIME_BASE_URL "runtime.acme.dev" matches',
      },
    },
  ],

  [
    'SSL: "false" passes',
    { given: { patch: {} }, want: { check: 'sandbox SSL', status: 'pass', source: SSL, message: `${SSL} is "false", as https sandbox URLs need` } },
  ],
  [
    'SSL: an unquoted YAML false passes',
    {
      given: { patch: { 'runtime-api': { env: { RUNTIME_DISABLE_SSL: false } } } },
      want: { check: 'sandbox SSL', status: 'pass', message: 'is "false"' },
    },
  ],
  [
    'SSL: unset fails because the default is "true"',
    {
      given: { patch: { 'runtime-api': { env: { RUNTIME_DISABLE_SSL: undefined } } } },
      want: {
        check: 'sandbox SSL',
        status: 'fail',
        source: SSL,
        message: `${SSL} is unset and defaults to "true", which breaks https sandbox URLs`,
        fix: `Set ${SSL}: "false".`,
      },
    },
  ],
  [
    'SSL: "true" fails',
    {
      given: { patch: { 'runtime-api': { env: { RUNTIME_DISABLE_SSL: 'true' } } } },
      want: { check: 'sandbox SSL', status: 'fail', message: `${SSL} is "true"; it must be "false" for https sandbox URLs` },
    },
  ],
  [
    'SSL: unset fails with the https chart default pattern too',
    {
      given: { patch: { env: { RUNTIME_URL_PATTERN: undefined }, 'runtime-api': { env: { RUNTIME_DISABLE_SSL: undefined } } } },
      want: { check: 'sandbox SSL', status: 'fail', message: 'defaults to "true"' },
    },
  ],
  [
    'SSL: does not matter for an http pattern',
    {
      given: {
        patch: { env: { RUNTIME_URL_PATTERN: 'http://{runtime_id}.runtime.acme.dev' }, 'runtime-api': { env: { RUNTIME_DISABLE_SSL: undefined } } },
      },
      want: { check: 'sandbox SSL', status: 'pass', message: 'does not matter for http' },
    },
  ],

  [
    'storage class: an existing one passes',
    {
      given: { patch: {} },
      want: { check: 'storage class', status: 'pass', source: STORAGE, message: `${STORAGE} "standard" exists in the cluster` },
    },
  ],
  [
    "storage class: a missing one fails and lists the cluster's",
    {
      given: { patch: { 'runtime-api': { env: { STORAGE_CLASS: 'fast-ssd' } } } },
      want: {
        check: 'storage class',
        status: 'fail',
        source: STORAGE,
        message: `${STORAGE} "fast-ssd" is not a storage class of the cluster: the cluster has "standard", "gp2"`,
      },
    },
  ],
  [
    'storage class: unset fails',
    {
      given: { patch: { 'runtime-api': { env: { STORAGE_CLASS: undefined } } } },
      want: {
        check: 'storage class',
        status: 'fail',
        source: STORAGE,
        message: `${STORAGE} is unset, and sandboxes do not start without a storage class`,
      },
    },
  ],
  [
    'storage class: without kubectl it is not checked',
    {
      given: { patch: {}, tools: { helm: HEALTHY_TOOLS.helm } },
      want: { check: 'storage class', status: 'warn', message: `${STORAGE} is "standard"; kubectl is not on PATH, so its existence was not checked` },
    },
  ],
  [
    'storage class: a failing kubectl is reported',
    {
      given: { patch: {}, tools: { kubectl: 'echo "Unable to connect to the server" >&2; exit 1' } },
      want: { check: 'storage class', status: 'warn', message: 'kubectl get storageclass failed (Unable to connect to the server)' },
    },
  ],

  [
    'database: external passes',
    {
      given: { patch: {} },
      want: {
        check: 'database',
        status: 'pass',
        source: 'externalDatabase.host',
        message: 'external PostgreSQL at externalDatabase.host "db.acme.internal"',
      },
    },
  ],
  [
    'database: embedded warns',
    {
      given: { patch: { postgresql: { enabled: true } } },
      want: {
        check: 'database',
        status: 'warn',
        source: 'postgresql.enabled',
        message: 'postgresql.enabled is true: the embedded PostgreSQL is for evaluation only, with no migration path to an external database',
      },
    },
  ],
  [
    'database: unset means embedded and warns',
    {
      given: { patch: { postgresql: undefined } },
      want: { check: 'database', status: 'warn', message: 'postgresql.enabled is unset (default true)' },
    },
  ],
  [
    'database: external without a host fails',
    {
      given: { patch: { externalDatabase: { host: undefined } } },
      want: {
        check: 'database',
        status: 'fail',
        source: 'externalDatabase.host',
        message: 'postgresql.enabled is false but externalDatabase.host is unset',
      },
    },
  ],

  [
    'application host: set passes',
    { given: { patch: {} }, want: { check: 'application host', status: 'pass', source: 'ingress.host', message: 'ingress.host is "app.acme.dev"' } },
  ],
  [
    'application host: missing fails',
    {
      given: { patch: { ingress: { host: undefined } } },
      want: { check: 'application host', status: 'fail', source: 'ingress.host', message: 'ingress.host is unset' },
    },
  ],
  [
    'application host: a URL fails',
    {
      given: { patch: { ingress: { host: 'https://app.acme.dev' } } },
      want: { check: 'application host', status: 'fail', message: 'is not a host name' },
    },
  ],
  [
    'login host: auth.<application host> passes',
    {
      given: { patch: {} },
      want: { check: 'login host', status: 'pass', source: 'keycloak.ingress.hostname', message: 'keycloak.ingress.hostname is "auth.app.acme.dev"' },
    },
  ],
  [
    'login host: missing fails',
    {
      given: { patch: { keycloak: { ingress: { hostname: undefined } } } },
      want: {
        check: 'login host',
        status: 'fail',
        message: 'keycloak.ingress.hostname is unset',
        fix: 'Set keycloak.ingress.hostname to the host name, for example auth.app.acme.dev.',
      },
    },
  ],
  [
    'login host: without auth. warns',
    {
      given: { patch: { keycloak: { ingress: { hostname: 'login.acme.dev' } } } },
      want: { check: 'login host', status: 'warn', message: 'does not start with auth.' },
    },
  ],
  [
    'login host: auth. of a parent domain passes',
    {
      given: { patch: { keycloak: { ingress: { hostname: 'auth.acme.dev' } } } },
      want: { check: 'login host', status: 'pass', message: 'keycloak.ingress.hostname is "auth.acme.dev"' },
    },
  ],
  [
    'runtime-API host: set passes',
    {
      given: { patch: {} },
      want: {
        check: 'runtime-API host',
        status: 'pass',
        source: 'runtime-api.ingress.host',
        message: 'runtime-api.ingress.host is "runtime-api.acme.dev"',
      },
    },
  ],
  [
    'runtime-API host: missing fails',
    {
      given: { patch: { 'runtime-api': { ingress: { host: undefined } } } },
      want: { check: 'runtime-API host', status: 'fail', source: 'runtime-api.ingress.host', message: 'runtime-api.ingress.host is unset' },
    },
  ],
  [
    'wildcard host: "." nests sandboxes under the base domain',
    {
      given: { patch: {} },
      want: {
        check: 'sandbox wildcard host',
        status: 'pass',
        source: PATTERN,
        message: `sandboxes are served at {runtime_id}.runtime.acme.dev (from ${PATTERN}); DNS and the TLS certificate need *.runtime.acme.dev`,
      },
    },
  ],
  [
    'wildcard host: "-" puts sandboxes one label under the parent',
    {
      given: { patch: { ...DASH_SEPARATOR, env: { RUNTIME_URL_PATTERN: 'https://{runtime_id}-runtime.acme.dev' } } },
      want: { check: 'sandbox wildcard host', status: 'pass', message: 'need *.acme.dev' },
    },
  ],
  [
    'wildcard host: "-" under a top-level domain fails',
    {
      given: {
        patch: {
          ...DASH_SEPARATOR,
          env: { RUNTIME_URL_PATTERN: 'https://{runtime_id}-runtime.dev' },
          'runtime-api': { env: { RUNTIME_BASE_URL: 'runtime.dev', RUNTIME_URL_SEPARATOR: '-' } },
        },
      },
      want: { check: 'sandbox wildcard host', status: 'fail', message: 'would need the wildcard *.dev' },
    },
  ],
  [
    'wildcard host: not derived from an unusable pattern',
    {
      given: { patch: { env: { RUNTIME_URL_PATTERN: 'sandboxes' } } },
      want: { check: 'sandbox wildcard host', status: 'warn', message: 'cannot derive the wildcard sandbox host' },
    },
  ],

  [
    'namespaces: a sandbox namespace passes',
    {
      given: { patch: {} },
      want: {
        check: 'namespaces',
        status: 'pass',
        source: 'runtime-api.sandbox_namespace',
        message: 'sandboxes run in namespace "openhands-sandboxes"',
      },
    },
  ],
  [
    'namespaces: empty means the release namespace and warns',
    {
      given: { patch: { 'runtime-api': { sandbox_namespace: '' } } },
      want: {
        check: 'namespaces',
        status: 'warn',
        source: 'runtime-api.sandbox_namespace',
        message: 'runtime-api.sandbox_namespace is empty, so sandboxes run in the release namespace beside the application',
      },
    },
  ],
  [
    'namespaces: unset warns too',
    { given: { patch: { 'runtime-api': { sandbox_namespace: undefined } } }, want: { check: 'namespaces', status: 'warn', message: 'is empty' } },
  ],

  [
    'conflicts: the same key with two values warns and names both paths',
    {
      given: { patch: { env: { STORAGE_CLASS: 'gp2' } } },
      want: {
        check: 'conflicting values',
        status: 'warn',
        source: STORAGE,
        message: `${STORAGE} "standard" and env.STORAGE_CLASS "gp2" differ; the doctor read ${STORAGE}`,
      },
    },
  ],

  ['helm: v4 passes', { given: { patch: {} }, want: { check: 'helm version', status: 'pass', message: 'helm v4.0.1+g1a2b3c4' } }],
  [
    'helm: v3 fails',
    {
      given: { patch: {}, tools: { kubectl: HEALTHY_TOOLS.kubectl, helm: 'echo v3.15.0+g1' } },
      want: { check: 'helm version', status: 'fail', message: 'older than the required v4' },
    },
  ],
  [
    'helm: absent is skipped with a note',
    {
      given: { patch: {}, tools: { kubectl: HEALTHY_TOOLS.kubectl } },
      want: { check: 'helm version', status: 'warn', message: 'helm is not on PATH, so its version was not checked' },
    },
  ],
];

describe('values rules', () => {
  test.each(rules)('%s', async (_name, { given, want }) => {
    const check = findCheck(await doctorOnValues(applyPatch(goodValues, given.patch), given.tools), want.check);
    expect(check.status).toBe(want.status);
    expect(check.message).toContain(want.message);
    if (want.source !== undefined) expect(check.source).toBe(want.source);
    if (want.fix !== undefined) expect(check.fix).toBe(want.fix);
    if (check.status !== 'pass') expect(check.fix).toEqual(expect.any(String));
  });

  test('the good values pass every check', async () => {
    const checks = await doctorOnValues(goodValues);
    expect(checks.map((check) => [check.name, check.status])).toEqual([
      ['sandbox URL pattern', 'pass'],
      ['sandbox base domain', 'pass'],
      ['sandbox SSL', 'pass'],
      ['storage class', 'pass'],
      ['database', 'pass'],
      ['application host', 'pass'],
      ['login host', 'pass'],
      ['runtime-API host', 'pass'],
      ['sandbox wildcard host', 'pass'],
      ['namespaces', 'pass'],
      ['helm version', 'pass'],
    ]);
  });

  test('the same key with the same value at two paths is no conflict', async () => {
    const checks = await doctorOnValues(applyPatch(goodValues, { env: { STORAGE_CLASS: 'standard' } }));
    expect(checks.find((check) => check.name === 'conflicting values')).toBeUndefined();
  });

  test('a first evaluation install, laid out like the chart example, gets every finding it deserves', async () => {
    const outcome = await runDoctor({ valuesFile: EVALUATION_VALUES_FILE }, await dependenciesWith(HEALTHY_TOOLS));
    if (!outcome.ok) throw new Error(outcome.error);
    expect(outcome.checks.map((check) => [check.name, check.status])).toEqual([
      ['sandbox URL pattern', 'fail'],
      ['sandbox base domain', 'warn'],
      ['sandbox SSL', 'fail'],
      ['storage class', 'pass'],
      ['database', 'warn'],
      ['application host', 'pass'],
      ['login host', 'pass'],
      ['runtime-API host', 'pass'],
      ['sandbox wildcard host', 'warn'],
      ['namespaces', 'warn'],
      ['helm version', 'pass'],
    ]);
    expect(outcome.checks[0]?.fix).toBe('Set env.RUNTIME_URL_PATTERN to "https://{runtime_id}-runtimes.example.com".');
  });
});
