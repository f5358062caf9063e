import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/kit/run/run';
import { FAULTS, startFaultInjector, type FaultInjector } from './support/fault-injector';
import { startOurServer, type OurServer } from './support/our-server';
import { elementsNamed, parseXml } from './support/xml';

/*
 * The real command line, as CI runs it: `npx tsx src/cli/contract.ts ...` in a child
 * process against servers in this process. Exit codes 0, 1 and 2, the files it writes,
 * --allow and --compare.
 */
const REPO = path.resolve(__dirname, '../..');
const CLI_TIMEOUT_MS = 90_000;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

// The CI command line goes through npx, as CI runs it; the other cases run the same
// src/cli/contract.ts through node and tsx, without npx's two seconds of start-up. The
// installed, compiled bin is run by test/package/installed-package.test.ts.
const NPX = ['npx', 'tsx', 'src/cli/contract.ts'];
const BIN = ['node', '--import', 'tsx', 'src/cli/contract.ts'];

function contract(args: string[], command: string[] = BIN): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      command[0]!,
      [...command.slice(1), ...args],
      { cwd: REPO, timeout: CLI_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let ours: OurServer;
let tooGenerous: FaultInjector;
let okForUnknown: FaultInjector;
let work: string;
beforeAll(async () => {
  ours = await startOurServer({ events: 160, seed: 'kit-cli' });
  tooGenerous = await startFaultInjector(ours.url, FAULTS.limit101Accepted);
  okForUnknown = await startFaultInjector(ours.url, FAULTS.okForUnknownConversation);
  work = mkdtempSync(path.join(tmpdir(), 'contract-cli-'));
});
afterAll(async () => {
  await Promise.all([tooGenerous.stop(), okForUnknown.stop()]);
  await ours.stop();
  rmSync(work, { recursive: true, force: true });
});

const file = (name: string) => path.join(work, name);

describe('against our own server (the CI command)', () => {
  it('passes every check at both levels on a fixture: exit 0, JUnit and JSON agree', async () => {
    const outcome = await contract(
      [
        '--base-url',
        ours.url,
        '--fixture',
        ours.manifestPath,
        '--seed',
        '7',
        '--runs',
        '10',
        '--junit',
        file('pass.xml'),
        '--json',
        file('pass.json'),
      ],
      NPX,
    );
    const result = JSON.parse(readFileSync(file('pass.json'), 'utf8')) as RunResult;
    const notPassed = result.suites.flatMap((suite) => suite.checks).filter((check) => check.status !== 'passed');
    expect(notPassed).toEqual([]);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/^PASSED: \d+ passed, 0 failed, 0 allowed, 0 skipped; \d+ requests in [\d.]+ s$/m);

    const junit = parseXml(readFileSync(file('pass.xml'), 'utf8'));
    const suites = elementsNamed(junit, 'testsuite');
    expect(suites.map((suite) => suite.attributes['name'])).toEqual(['seed', 'reference']);
    suites.forEach((suite, index) => {
      const checks = result.suites[index]!.checks;
      expect(suite.attributes).toMatchObject({ tests: String(checks.length), failures: '0', skipped: '0' });
      expect(elementsNamed(suite, 'testcase')).toHaveLength(checks.length);
    });
    expect(junit.attributes).toMatchObject({ tests: String(result.suites.flatMap((suite) => suite.checks).length), failures: '0' });
  });
});

describe('a failing check', () => {
  it('exits 1 and reports the request, the response, what was expected and a curl line', async () => {
    const outcome = await contract([
      '--base-url',
      tooGenerous.url,
      '--conversation-id',
      ours.conversationId,
      '--level',
      'seed',
      '--only',
      'errors.limit',
      '--junit',
      file('fail.xml'),
    ]);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toContain('FAIL    errors.limit-above-max');
    expect(outcome.stdout).toMatch(/request: {3}GET http:\/\/127\.0\.0\.1:\d+\/api\/conversations\/\w+\/events\/search\?limit=101/);
    expect(outcome.stdout).toMatch(/response: {2}200 EventPage with 100 items/);
    expect(outcome.stdout).toContain('expected:  422 with a detail item whose loc names "limit"');
    expect(outcome.stdout).toMatch(/reproduce: curl -sS -g 'http:\/\/127\.0\.0\.1:\d+\/api\/conversations\/\w+\/events\/search\?limit=101'/);

    const junit = parseXml(readFileSync(file('fail.xml'), 'utf8'));
    const failures = elementsNamed(junit, 'failure');
    expect(junit.attributes).toMatchObject({ failures: '1' });
    expect(failures).toHaveLength(1);
    expect(failures[0]!.attributes['message']).toContain('answered 200');
    expect(failures[0]!.text).toContain('reproduce: curl');
  });

  it('--allow turns it into an allowed divergence: exit 0, the reason shown', async () => {
    writeFileSync(file('allow.yaml'), '- id: errors.limit-above-max\n  reason: this server clamps limit to 100 on purpose\n');
    const outcome = await contract([
      '--base-url',
      tooGenerous.url,
      '--conversation-id',
      ours.conversationId,
      '--level',
      'seed',
      '--only',
      'errors.limit',
      '--allow',
      file('allow.yaml'),
      '--json',
      file('allowed.json'),
    ]);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('allowed errors.limit-above-max');
    expect(outcome.stdout).toContain('allowed: this server clamps limit to 100 on purpose');
    const result = JSON.parse(readFileSync(file('allowed.json'), 'utf8')) as RunResult;
    expect(result.suites[0]!.checks.find((check) => check.id === 'errors.limit-above-max')).toMatchObject({
      status: 'allowed',
      allowedReason: 'this server clamps limit to 100 on purpose',
    });
  });
});

describe('--compare', () => {
  it('reports each difference between the two servers, with both statuses', async () => {
    const outcome = await contract([
      '--base-url',
      ours.url,
      '--conversation-id',
      ours.conversationId,
      '--compare',
      okForUnknown.url,
      '--level',
      'seed',
      '--only',
      'errors.not-found',
    ]);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toContain('compare (same requests against the second server): 1 passed, 1 failed');
    expect(outcome.stdout).toContain('FAIL    compare.errors.not-found');
    // Named by their URLs: the server under test answered 404, the --compare server 200; said once, with how many requests showed it.
    expect(outcome.stdout).toContain(`status 404 from the server under test (${ours.url}), 200 from the --compare server (${okForUnknown.url})`);
    expect(outcome.stdout.match(/status 404 from the server under test/g)).toHaveLength(1);
    expect(outcome.stdout).toMatch(/shown by \d+ requests?/);
    expect(outcome.stdout).toContain('ok      compare.discovery');
  });
});

describe('exit 2 when it cannot run, with what to do', () => {
  it.each([
    [
      'the server is unreachable',
      ['--base-url', 'http://127.0.0.1:9', '--conversation-id', '8f1a2b3c4d5e6f708192a3b4c5d6e7f8'],
      /CANNOT RUN: Cannot reach the server .* Is it running\? Check --base-url\./,
    ],
    [
      'the conversation does not exist',
      ['--conversation-id', '00000000-0000-4000-8000-000000000000'],
      /CANNOT RUN: Conversation 00000000-0000-4000-8000-000000000000 on http:\/\/127\.0\.0\.1:\d+ was not found \(404\)\. Check --conversation-id/,
    ],
  ])('%s', async (_name, args, message) => {
    const outcome = await contract(args.includes('--base-url') ? args : ['--base-url', ours.url, ...args]);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toMatch(message);
  });

  it('a --contract or --changed-since file that cannot be read, naming it', async () => {
    const target = ['--base-url', ours.url, '--conversation-id', ours.conversationId];
    const missing = await contract([...target, '--contract', file('absent.yaml')]);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({
      code: 2,
      stderr: expect.stringContaining(`contract: cannot read --contract ${file('absent.yaml')}`),
    });
    writeFileSync(file('not-a-contract.json'), '{"hello": 1}');
    const old = await contract([...target, '--changed-since', file('not-a-contract.json')]);
    expect({ code: old.code, stderr: old.stderr }).toEqual({
      code: 2,
      stderr: `contract: --changed-since ${file('not-a-contract.json')} is not an OpenAPI document (no paths); pass openapi.yaml or its JSON form\n`,
    });
  });

  // Each bad-argument message is covered in arguments.test.ts; here, that one reaches the exit code.
  it('bad arguments', async () => {
    const outcome = await contract(['--base-url', 'http://127.0.0.1:9', '--conversation-id', 'x', '--level', 'strict'], NPX);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('contract: --level must be seed, reference or both, got "strict"');
  });
});

it('the agent-server-contract bin is this CLI, compiled', async () => {
  const manifest = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  expect(manifest.bin['agent-server-contract']).toBe('dist/src/cli/contract.js');
  const outcome = await contract(['--help'], BIN);
  expect(outcome.code).toBe(0);
  expect(outcome.stdout).toContain('Usage: npm run contract -- [run] --base-url URL --conversation-id ID [options]');
});

it('`run` names the default command, as the README calls it: its help, and its bad arguments', async () => {
  const help = await contract(['run', '--help'], BIN);
  expect(help).toEqual({ code: 0, stdout: expect.stringContaining('agent-server-contract [run] --replay FILE.har --base-url URL'), stderr: '' });
  const wrong = await contract(['run', '--replay', 'session.har', '--base-url', 'http://127.0.0.1:9', '--seed', '3'], BIN);
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toContain('contract: --seed does not apply to --replay, which sends the recorded requests as they are; leave it out');
});
