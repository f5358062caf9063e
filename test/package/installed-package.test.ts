/**
 * The package as a user gets it: `npm pack`, the tarball installed into an empty project
 * outside this checkout (so nothing resolves from our node_modules), then the installed
 * bins and entry points are used the way the README tells users to use them.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { SERVER_NODE_FLAGS } from '../../src/cli/server-node-flags';
import { installPackages, packedProject } from './packed-project';
import { CHECKOUT_SQLITE, sqlitePrebuilds } from '../../dev/sqlite-prebuilds';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(ROOT, 'docs/examples/walk-events.ts');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/** npm run by `npm test` hands its own settings down in npm_* variables; the consumer's npm must not inherit them. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.toLowerCase().startsWith('npm_')) env[name] = value;
  return { ...env, ...extra };
}

let work: string;
let consumer: string;
let packedFiles: string[];
let server: ChildProcess | undefined;
let serverUrl: string;
let conversationId: string;
let eventFiles: number;
let clientConsumer: string;
let clientTarball: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'installed-package-'));
  consumer = path.join(work, 'consumer');
  mkdirSync(consumer);
  // The tarball holds a build of the current sources (`npm pack` runs `prepare`), shared with the Node LTS test.
  const packed = await packedProject();
  packedFiles = [...packed.files];
  clientTarball = packed.clientTarball;
  writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
  // The client package is built by the same build; installed on its own, it goes into a
  // second project that has nothing else, not even @types/node.
  clientConsumer = path.join(work, 'client-consumer');
  mkdirSync(clientConsumer);
  writeFileSync(
    path.join(clientConsumer, 'package.json'),
    JSON.stringify({ name: 'client-consumer', version: '1.0.0', private: true, type: 'module' }),
  );
  // better-sqlite3 comes prebuilt, as a user's install downloads it: from this checkout's build (dev/sqlite-prebuilds.ts).
  const prebuilds = await sqlitePrebuilds(path.join(work, 'prebuilds'), [CHECKOUT_SQLITE]);
  await Promise.all([
    installPackages(consumer, [packed.tarball, '@types/node@20'], cleanEnv(prebuilds)),
    installPackages(clientConsumer, [clientTarball], cleanEnv(prebuilds)),
  ]);

  // Installed and given no path, the server serves ./workspace/conversations, as the reference does.
  const sample = path.join(ROOT, 'sample-data/conversations');
  cpSync(sample, path.join(consumer, 'workspace/conversations'), { recursive: true });
  conversationId = largestConversation(sample);
  eventFiles = readdirSync(path.join(sample, conversationId, 'events')).length;
  ({ server, url: serverUrl } = await startInstalledServer(consumer));
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

function largestConversation(root: string): string {
  const ids = readdirSync(root).filter((name) => /^[0-9a-f]{32}$/.test(name));
  const eventsIn = (id: string) => (existsSync(path.join(root, id, 'events')) ? readdirSync(path.join(root, id, 'events')).length : 0);
  const sizes = new Map(ids.map((id) => [id, eventsIn(id)]));
  const largest = ids.sort((a, b) => (sizes.get(b) ?? 0) - (sizes.get(a) ?? 0))[0];
  if (!largest) throw new Error(`no conversation in ${root}`);
  return largest;
}

function bin(name: string): string {
  return path.join(consumer, 'node_modules/.bin', name);
}

/** Starts the installed `agent-server` on port 0 and resolves with the address its start line prints. */
function startInstalledServer(cwd: string, env: Record<string, string> = {}, args: string[] = []): Promise<{ server: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin('agent-server'), ['--port', '0', ...args], { cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+), serving (.+)$/m.exec(output);
      if (match?.[1]) resolve({ server: child, url: match[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`agent-server exited with ${code} before listening:\n${output}`)));
  });
}

describe('the packed tarball', () => {
  it('holds the build, the contract, the README and the licence, and no tests, development code, bench results or CI files', () => {
    for (const expected of [
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/server-entry.js',
      'dist/src/cli/start.js',
      'dist/generated/openapi.json',
      'dist/generated/event-validator.js',
      'dist/viewer/index.html',
      'openapi.yaml',
      'README.md',
      'LICENSE',
      'package.json',
    ]) {
      expect(packedFiles).toContain(expected);
    }
    const unwanted = packedFiles.filter(
      (file) =>
        /^(test|bench|dev|\.ci|src|scripts|sample-data)\//.test(file) ||
        /^dist\/(dev|src\/(bench|soak))\/|local-cluster|server-process/.test(file) ||
        (file.endsWith('.ts') && !file.endsWith('.d.ts')),
    );
    expect(unwanted).toEqual([]);
  });
});

describe('the installed package', () => {
  it('serves ./workspace/conversations from the agent-server bin when given no path', () => {
    expect(serverUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('compiles the README example as a strict ES module consumer and walks every event of a conversation with it', async () => {
    // The README shows docs/examples/walk-events.ts verbatim: this is the same text.
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(readFileSync(EXAMPLE, 'utf8'));
    cpSync(EXAMPLE, path.join(consumer, 'walk-events.ts'));
    writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noUncheckedIndexedAccess: true,
          outDir: 'out',
          types: ['node'],
        },
        files: ['walk-events.ts'],
      }),
    );
    await run(process.execPath, [TSC, '-p', path.join(consumer, 'tsconfig.json')], { cwd: consumer });

    const walked = await run(process.execPath, [path.join(consumer, 'out/walk-events.js'), serverUrl, conversationId], { cwd: consumer });
    const lines = walked.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(JSON.parse(lines[lines.length - 1] ?? '')).toEqual({ walked: eventFiles, counted: eventFiles });
  });

  it('runs express-openapi-validator with the fix in patches/: no route matcher compiled per request, and no install script', async () => {
    // Counts every regular expression the process compiles at run time (path-to-regexp builds
    // its matchers with `new RegExp`) and prints the count on SIGUSR2. The released validator
    // compiles a matcher for each route it scans on every request; the patched one once per route.
    const counter = path.join(consumer, 'count-regexps.cjs');
    writeFileSync(
      counter,
      [
        'let compiled = 0;',
        'const count = { construct: (target, args, newTarget) => (compiled++, Reflect.construct(target, args, newTarget)), apply: (target, self, args) => (compiled++, Reflect.apply(target, self, args)) };',
        'globalThis.RegExp = new Proxy(RegExp, count);',
        "process.on('SIGUSR2', () => process.stderr.write('regexps compiled: ' + compiled + '\\n'));",
      ].join('\n'),
    );
    // A second server on the sample data beside the first: each server keeps its own index.
    const counted = await startInstalledServer(consumer, { NODE_OPTIONS: `--require ${counter}` }, [
      '--index-path',
      path.join(consumer, 'counted-server.sqlite'),
    ]);
    let output = '';
    counted.server.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const compiledSoFar = async (): Promise<number> => {
      const before = output.length;
      counted.server.kill('SIGUSR2');
      for (let wait = 0; wait < 100 && !/regexps compiled: \d+\n/.test(output.slice(before)); wait++) await new Promise((r) => setTimeout(r, 20));
      return Number(/regexps compiled: (\d+)\n/.exec(output.slice(before))?.[1]);
    };
    const search = `${counted.url}/api/conversations/${conversationId}/events/search?limit=2&timestamp__gte=2020-01-01T00:00:00Z`;
    const REQUESTS = 20;
    try {
      expect((await fetch(search)).status).toBe(200); // the validator loads and compiles its routes
      const before = await compiledSoFar();
      for (let i = 0; i < REQUESTS; i++) expect((await fetch(search)).status).toBe(200);
      const after = await compiledSoFar();
      expect(Number.isFinite(before)).toBe(true);
      expect(after - before).toBeLessThan(REQUESTS);
    } finally {
      const exited = new Promise((resolve) => counted.server.once('exit', resolve));
      counted.server.kill('SIGTERM');
      await exited;
    }
    const manifest = JSON.parse(readFileSync(path.join(consumer, 'node_modules/agent-server-contract/package.json'), 'utf8'));
    expect(manifest.scripts?.postinstall).toBeUndefined();
    expect(manifest.scripts?.install).toBeUndefined();
    expect(Object.keys(manifest.dependencies)).not.toContain('patch-package');
  });

  it('starts agent-server with the node flags npm start uses', () => {
    const firstLine = readFileSync(path.join(consumer, 'node_modules/agent-server-contract/dist/src/cli/start.js'), 'utf8').split('\n')[0];
    expect(firstLine).toBe(`#!/usr/bin/env -S node ${SERVER_NODE_FLAGS.join(' ')}`);
  });

  it('loads from CommonJS require, the main entry and the server entry alike', async () => {
    const script = [
      "const main = require('agent-server-contract');",
      "const server = require('agent-server-contract/server');",
      'console.log(JSON.stringify({ client: typeof main.createAgentServerClient, error: typeof main.AgentServerError, app: typeof server.createApp, store: typeof server.openDirectoryStore }));',
    ].join('\n');
    writeFileSync(path.join(consumer, 'require.cjs'), script);
    const { stdout } = await run(process.execPath, ['require.cjs'], { cwd: consumer });
    expect(JSON.parse(stdout)).toEqual({ client: 'function', error: 'function', app: 'function', store: 'function' });
  });

  it('passes the installed contract kit against the installed server', async () => {
    const kit = await run(bin('agent-server-contract'), ['--base-url', serverUrl, '--conversation-id', conversationId], {
      cwd: consumer,
      env: cleanEnv(),
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect({ code: 'code' in kit ? kit.code : 0, stderr: kit.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it("writes a fixture with the installed kit's fixture command, and the kit's --fixture mode passes the installed server on it", async () => {
    const conversations = path.join(work, 'fixture-conversations');
    const written = await run(bin('agent-server-contract'), ['fixture', '--out', conversations, '--events', '80', '--seed', 'installed'], {
      cwd: consumer,
      env: cleanEnv(),
    });
    const manifest = /manifest: +(\S+)/.exec(written.stdout)?.[1];
    expect(manifest).toBe(path.join(conversations, `${/conversation ([0-9a-f]{32})/.exec(written.stdout)?.[1]}.manifest.json`));
    const fixtureServer = await startInstalledServer(consumer, {}, ['--conversations-path', conversations]);
    try {
      const kit = await run(bin('agent-server-contract'), ['--base-url', fixtureServer.url, '--fixture', manifest!, '--runs', '5'], {
        cwd: consumer,
        env: cleanEnv(),
        maxBuffer: 64 * 1024 * 1024,
      }).catch((error: { code: number; stdout: string; stderr: string }) => error);
      expect({ code: 'code' in kit ? kit.code : 0, stderr: kit.stderr }).toEqual({ code: 0, stderr: '' });
      expect(kit.stdout).toMatch(/ok +fixture\.events/);
    } finally {
      const exited = new Promise((resolve) => fixtureServer.server.once('exit', resolve));
      fixtureServer.server.kill('SIGTERM');
      await exited;
    }
  });

  it.each(['agent-server', 'agent-server-contract', 'agent-server-doctor'])('answers --help and --version from the %s bin', async (name) => {
    const help = await run(bin(name), ['--help'], { cwd: consumer, env: cleanEnv() });
    expect(help.stdout).toMatch(/usage/i);
    const version = await run(bin(name), ['--version'], { cwd: consumer, env: cleanEnv() });
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
  });
});

describe('the client package, installed alone', () => {
  const CLIENT = 'agent-server-contract-client';

  it('brings openapi-fetch and nothing else of ours: no server, no Express, no validator', () => {
    const lock = JSON.parse(readFileSync(path.join(clientConsumer, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
    const installed = Object.keys(lock.packages)
      .filter((key) => key.startsWith('node_modules/'))
      .map((key) => key.slice('node_modules/'.length));
    const manifest = JSON.parse(readFileSync(path.join(clientConsumer, 'node_modules', CLIENT, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);
    expect(manifest.scripts).toBeUndefined();
    const openapiFetch = JSON.parse(readFileSync(path.join(clientConsumer, 'node_modules/openapi-fetch/package.json'), 'utf8'));
    expect(installed.sort()).toEqual([CLIENT, 'openapi-fetch', ...Object.keys(openapiFetch.dependencies ?? {})].sort());
  });

  it('walks a real server from an ES module and counts from CommonJS', async () => {
    writeFileSync(
      path.join(clientConsumer, 'walk.mjs'),
      [
        `import { createAgentServerClient } from '${CLIENT}';`,
        'const client = createAgentServerClient({ baseUrl: process.argv[2] });',
        'let walked = 0;',
        'for await (const event of client.iterateEvents(process.argv[3], { limit: 7 })) walked += typeof event.kind === "string" ? 1 : 0;',
        "const missing = await client.getEvent(process.argv[3], 'no-such-event');",
        'console.log(JSON.stringify({ walked, missing: missing.ok ? 200 : missing.error.status }));',
      ].join('\n'),
    );
    const walked = await run(process.execPath, ['walk.mjs', serverUrl, conversationId], { cwd: clientConsumer });
    expect(JSON.parse(walked.stdout)).toEqual({ walked: eventFiles, missing: 404 });

    writeFileSync(
      path.join(clientConsumer, 'count.cjs'),
      [
        `const { createAgentServerClient, AgentServerError } = require('${CLIENT}');`,
        'createAgentServerClient({ baseUrl: process.argv[2] }).countEvents(process.argv[3], {}).then((counted) => {',
        '  console.log(JSON.stringify({ ok: counted.ok, count: counted.count }));',
        '  return createAgentServerClient({ baseUrl: process.argv[2] }).searchEvents(process.argv[3], { limit: 0 });',
        '}).then((bad) => console.log(JSON.stringify({ isError: bad.error instanceof AgentServerError, status: bad.error.status, loc: bad.error.validationErrors[0].loc })));',
      ].join('\n'),
    );
    const counted = await run(process.execPath, ['count.cjs', serverUrl, conversationId], { cwd: clientConsumer });
    const [count, bad] = counted.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(count).toEqual({ ok: true, count: eventFiles });
    expect(bad).toEqual({ isError: true, status: 422, loc: ['query', 'limit'] });
  });

  it('type-checks a strict consumer, ES module and CommonJS, against the contract types it ships', async () => {
    const typed = [
      `import { type Event, type EventPage, createAgentServerClient } from '${CLIENT}';`,
      "const client = createAgentServerClient({ baseUrl: 'http://127.0.0.1:8000' });",
      'export async function firstKinds(id: string): Promise<Event["kind"][]> {',
      "  const result = await client.searchEvents(id, { kind: 'MessageEvent', limit: 5, sort_order: 'TIMESTAMP_DESC' });",
      '  const page: EventPage | undefined = result.ok ? result.page : undefined;',
      '  return (page?.items ?? []).map((event) => event.kind);',
      '}',
      '// @ts-expect-error: the contract has no such sort order',
      "void client.searchEvents('x', { sort_order: 'BY_MOOD' });",
      '// @ts-expect-error: limit is an integer, not a string',
      "void client.searchEvents('x', { limit: '5' });",
    ].join('\n');
    writeFileSync(path.join(clientConsumer, 'typed.mts'), typed);
    writeFileSync(path.join(clientConsumer, 'typed.cts'), typed);
    const compilerOptions = {
      target: 'ES2022',
      lib: ['ES2022', 'DOM'],
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      noEmit: true,
      types: [],
    };
    writeFileSync(path.join(clientConsumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['typed.mts', 'typed.cts'] }));
    const checked = await run(process.execPath, [TSC, '-p', path.join(clientConsumer, 'tsconfig.json')], { cwd: clientConsumer }).catch(
      (error: { code: number; stdout: string }) => error,
    );
    expect(checked.stdout).toBe('');
  });

  it('is what the main package exports: the same names from agent-server-contract', async () => {
    const script = [
      `const names = (module) => Object.keys(require(module)).sort();`,
      `console.log(JSON.stringify([names('agent-server-contract'), names('${CLIENT}')]));`,
    ].join('\n');
    writeFileSync(path.join(consumer, 'exports.cjs'), script);
    cpSync(path.join(clientConsumer, 'node_modules', CLIENT), path.join(consumer, 'node_modules', CLIENT), { recursive: true });
    const { stdout } = await run(process.execPath, ['exports.cjs'], { cwd: consumer });
    const [main, client] = JSON.parse(stdout) as [string[], string[]];
    expect(client).toContain('createAgentServerClient');
    expect(main).toEqual(client);
  });
});
