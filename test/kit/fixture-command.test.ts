import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunResult } from '../../src/kit/run/run';
import { type ServerProcess, startServerProcess } from '../../dev/soak/server-process';

/*
 * `agent-server-contract fixture` as a user of the kit's --fixture mode runs it: the command
 * line in a child process writes a conversation and its manifest into a temporary
 * directory, our server (a real process) serves that directory, and the kit's --fixture run
 * against it passes with the exact-result checks run, not skipped. The installed, compiled
 * bin runs the same command in test/package/installed-package.test.ts.
 */
const REPO = path.resolve(__dirname, '../..');
const CLI_TIMEOUT_MS = 90_000;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function contractCli(args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/contract.ts', ...args],
      { cwd: REPO, timeout: CLI_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

let work: string;
let server: ServerProcess | undefined;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'fixture-command-'));
});
afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

it('writes a conversation and its manifest that the kit, run with --fixture against our server on them, passes', async () => {
  const conversations = path.join(work, 'conversations');
  const written = await contractCli(['fixture', '--out', conversations, '--events', '120', '--seed', 'fixture-command']);
  expect({ code: written.code, stderr: written.stderr }).toEqual({ code: 0, stderr: '' });
  const [, conversationId] = /^Wrote 120 events of conversation ([0-9a-f]{32})$/m.exec(written.stdout) ?? [];
  expect(conversationId).toBeDefined();
  const manifest = path.join(conversations, `${conversationId}.manifest.json`);
  expect(written.stdout).toContain(`manifest:  ${manifest}`);
  expect(readdirSync(path.join(conversations, conversationId!, 'events'))).toHaveLength(120);
  expect((JSON.parse(readFileSync(manifest, 'utf8')) as { conversationId: string }).conversationId).toBe(conversationId);

  server = await startServerProcess({ conversationsPath: conversations });
  const report = path.join(work, 'report.json');
  const kit = await contractCli(['--base-url', server.url, '--fixture', manifest, '--seed', '3', '--runs', '5', '--json', report]);
  expect(kit.code).toBe(0);
  const result = JSON.parse(readFileSync(report, 'utf8')) as RunResult;
  const fixtureChecks = result.suites.flatMap((suite) => suite.checks).filter((check) => check.id.startsWith('fixture.'));
  expect(fixtureChecks.length).toBeGreaterThan(0);
  expect(fixtureChecks.filter((check) => check.status !== 'passed')).toEqual([]);
});

describe('bad arguments: exit 2, a message naming the problem and the fix, nothing written', () => {
  it.each([
    ['no --out', ['--events', '10'], 'fixture: --out is required: pass the conversations directory to write into, e.g. --out ./data/conversations'],
    ['an unknown flag', ['--out', 'OUT', '--evnts', '10'], 'fixture: --evnts is not an option of fixture; the options are below'],
    [
      'a value without its flag',
      ['conversations'],
      'fixture: unexpected argument "conversations": every value follows its flag, e.g. --out conversations',
    ],
    ['a bad number', ['--out', 'OUT', '--events', 'many'], 'fixture: --events must be a whole number of 0 or more, got "many"; e.g. --events 320'],
  ])('%s', async (_name, args, message) => {
    const out = path.join(work, 'refused');
    const outcome = await contractCli(['fixture', ...args.map((arg) => (arg === 'OUT' ? out : arg))]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr.split('\n')[0]).toBe(message);
    expect(outcome.stderr).toContain('Usage: agent-server-contract fixture --out DIR [options]');
    expect(outcome.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  });

  it('exit 1 when --out cannot be written, saying what to check', async () => {
    const notADirectory = path.join(work, 'a-file');
    writeFileSync(notADirectory, 'not a directory');
    const outcome = await contractCli(['fixture', '--out', notADirectory, '--events', '5']);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(/^fixture: could not write the conversation: .*; check that --out names a directory you can write to\n$/);
  });
});

it('is listed in the kit help, and `npm run fixture` runs the same command', async () => {
  const help = await contractCli(['--help']);
  expect(help.stdout).toContain('fixture --out DIR');
  const manifest = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(manifest.scripts['fixture']).toBe('tsx src/cli/contract.ts fixture');
  const fixtureHelp = await contractCli(['fixture', '--help']);
  expect(fixtureHelp.code).toBe(0);
  expect(fixtureHelp.stdout).toContain('Serve DIR with the server under test');
});
