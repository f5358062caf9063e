import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { loadOpenApiDocument } from '../../src/contract';
import { type HarLog, MASKED, recordHar } from '../../src/kit/har';
import { type ContractProxy, startContractProxy } from '../../src/kit/proxy/proxy';
import { runProxyCommand } from '../../src/kit/proxy/proxy-command';
import { runReplay } from '../../src/kit/replay/replay';
import { FAULTS, type FaultInjector, startFaultInjector } from './support/fault-injector';
import { startOurServer, type OurServer } from './support/our-server';
import { elementsNamed, parseXml } from './support/xml';

/*
 * Record and replay, over real servers on loopback: a client's session through the proxy with
 * `record`, written as HAR 1.2 with its secrets masked; the viewer's page, /health, /docs and
 * the live socket pass through it untouched and are listed as outside the contract; the
 * recording replayed against the same server passes, against one with a fault it fails on the
 * entries the fault changes, by the contract and against the recorded answers.
 */

const KEY = 'replay-test-key';
const document = loadOpenApiDocument();
let ours: OurServer;
let faulty: FaultInjector;
let work: string;
let summary: ReturnType<ContractProxy['summary']>;
let socketMessages: number;
let harFile: string;

const searchPath = (id: string) => `/api/conversations/${id}/events/search`;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'record-replay-'));
  ours = await startOurServer({ events: 40, seed: 'record-replay', sessionApiKeys: [KEY] });
  faulty = await startFaultInjector(ours.url, FAULTS.extraPropertyOnEvent);
  harFile = path.join(work, 'session.har');
  const recorder = recordHar(harFile);
  const started = await startContractProxy({ target: ours.url, port: 0, document, record: recorder.add });
  if (!started.ok) throw new Error(started.message);
  const { proxy } = started;
  const headers = { 'X-Session-API-Key': KEY, Cookie: 'viewer=secret-cookie' };
  const get = async (target: string) => {
    const response = await fetch(`${proxy.url}${target}`, { headers });
    await response.arrayBuffer();
    return response.status;
  };
  const id = ours.conversationId;
  expect(await get(`${searchPath(id)}?limit=5`)).toBe(200);
  expect(await get(`${searchPath(id)}?limit=5&sort_order=TIMESTAMP_DESC&session_api_key=${KEY}`)).toBe(200);
  expect(await get(`/api/conversations/${id}/events/count?kind=MessageEvent`)).toBe(200);
  expect(await get('/api/conversations/00000000-0000-4000-8000-000000000000/events/count')).toBe(404);
  for (const outside of ['/', '/health', '/docs/']) expect(await get(outside)).toBeLessThan(400);
  // The viewer's live socket, through the proxy: it opens and the server's events arrive on it.
  socketMessages = await new Promise<number>((resolve, reject) => {
    const socket = new WebSocket(`${proxy.url.replace('http', 'ws')}/sockets/events/${id}?resend_all=true`, {
      headers: { 'X-Session-API-Key': KEY },
    });
    let received = 0;
    socket.on('message', () => {
      received += 1;
      if (received === 3) {
        resolve(received);
        socket.close();
      }
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
  await proxy.stop();
  summary = proxy.summary();
  await recorder.close();
});

afterAll(async () => {
  await faulty?.stop();
  await ours?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the proxy stays out of the way', () => {
  it('passes the viewer, /health and /docs through, listed as outside the contract, not as violations', () => {
    expect(summary.violations).toEqual([]);
    expect(summary.outside.map((traffic) => `${traffic.method} ${traffic.path}`)).toEqual(['GET /', 'GET /docs/', 'GET /health']);
  });

  it("passes the viewer's live socket through", () => {
    expect(socketMessages).toBe(3);
    expect(summary.webSockets).toEqual([{ path: `/sockets/events/${ours.conversationId}`, connections: 1 }]);
  });
});

describe('--record', () => {
  it('writes every exchange forwarded as HAR 1.2: request, status, headers, body text', () => {
    const har = JSON.parse(readFileSync(harFile, 'utf8')) as HarLog;
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries.map((entry) => [entry.request.method, new URL(entry.request.url).pathname, entry.response.status])).toEqual([
      ['GET', searchPath(ours.conversationId), 200],
      ['GET', searchPath(ours.conversationId), 200],
      ['GET', `/api/conversations/${ours.conversationId}/events/count`, 200],
      ['GET', '/api/conversations/00000000-0000-4000-8000-000000000000/events/count', 404],
      ['GET', '/', expect.any(Number)],
      ['GET', '/health', 200],
      ['GET', '/docs/', expect.any(Number)],
    ]);
    const first = har.log.entries[0]!;
    expect((JSON.parse(first.response.content.text!) as { items: unknown[] }).items).toHaveLength(5);
    expect(first.response.content.mimeType).toMatch(/^application\/json/);
    expect(first.request.headers).toContainEqual({ name: 'X-Session-API-Key', value: MASKED });
  });

  it('a file that cannot be written is refused before the proxy starts, saying what to do', async () => {
    const said: string[] = [];
    const missing = path.join(work, 'no-such-folder', 'session.har');
    const code = await runProxyCommand(['--target', ours.url, '--port', '0', '--record', missing], {
      out: (text) => said.push(text),
      err: (text) => said.push(text),
      stopRequested: new Promise(() => {}),
    });
    expect(code).toBe(2);
    expect(said.join('')).toContain(
      `contract proxy: --record ${missing}: its folder ${path.dirname(missing)} does not exist; create it or pick another path`,
    );
  });

  it("masks the SDK's secret fields in JSON and JSON lines bodies a server answers with, credentials in other text, and keeps no bytes it cannot mask", async () => {
    // A server under test that answers with a key in clear: the recording is a file people share.
    const bodies: Record<string, { type: string; body: Buffer }> = {
      '/json': { type: 'application/json', body: Buffer.from('{"items":[{"llm":{"api_key":"sk-recorded-leak-0001"}}],"next_page_id":null}') },
      '/lines': { type: 'application/x-ndjson', body: Buffer.from('{"id":1}\n{"llm":{"api_key":"sk-recorded-leak-0002"}}\n') },
      '/text': { type: 'text/markdown', body: Buffer.from('Run it with OPENAI_API_KEY=sk-recorded-leak-0003 set.\n') },
      '/archive': {
        type: 'application/zip',
        body: Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xff, 0xfe]), Buffer.from('sk-recorded-leak-0004')]),
      },
    };
    const leaky = http.createServer((req, res) => {
      const answer = bodies[req.url ?? '']!;
      res.writeHead(200, { 'content-type': answer.type }).end(answer.body);
    });
    await new Promise<void>((resolve) => leaky.listen(0, '127.0.0.1', resolve));
    const file = path.join(work, 'leaky.har');
    const recorder = recordHar(file);
    const started = await startContractProxy({
      target: `http://127.0.0.1:${(leaky.address() as AddressInfo).port}`,
      port: 0,
      document,
      record: recorder.add,
    });
    if (!started.ok) throw new Error(started.message);
    for (const address of Object.keys(bodies)) await (await fetch(`${started.proxy.url}${address}`)).arrayBuffer();
    await started.proxy.stop();
    await recorder.close();
    leaky.close();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('sk-recorded-leak');
    const contents = (JSON.parse(text) as HarLog).log.entries.map((entry) => entry.response.content);
    const json = JSON.parse(contents[0]!.text!) as { items: { llm: { api_key: string } }[] };
    expect(json.items[0]!.llm.api_key).toBe(MASKED);
    expect(contents[1]!.text!.split('\n').map((line) => (line ? JSON.parse(line) : line))).toEqual([{ id: 1 }, { llm: { api_key: MASKED } }, '']);
    expect(contents[2]!.text).toBe(`Run it with OPENAI_API_KEY=${MASKED} set.\n`);
    expect(contents[3]).toEqual({ size: bodies['/archive']!.body.length, mimeType: 'application/zip', comment: expect.stringContaining('not kept') });
  });

  it('masks the session key and cookies in headers and query, everywhere in the file', () => {
    const text = readFileSync(harFile, 'utf8');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('secret-cookie');
    const har = JSON.parse(text) as HarLog;
    expect(har.log.entries[1]!.request.queryString).toContainEqual({ name: 'session_api_key', value: MASKED });
  });
});

describe('--replay', () => {
  it('against the same server: every declared entry answers as recorded; what the contract does not declare is listed, skipped', async () => {
    const result = await runReplay({ file: harFile, baseUrl: ours.url, document, sessionApiKey: KEY, timeoutMs: 5000 });
    expect(result.outcome).toBe('passed');
    const checks = result.suites.find((suite) => suite.name === 'replay')!.checks;
    expect(checks.map((check) => [check.id, check.status])).toEqual([
      ['replay.entry-1', 'passed'],
      ['replay.entry-2', 'passed'],
      ['replay.entry-3', 'passed'],
      ['replay.entry-4', 'passed'],
    ]);
    expect(result.notes).toEqual([
      'entry 5 (GET /): not a request this contract declares; skipped',
      'entry 6 (GET /health): not a request this contract declares; skipped',
      'entry 7 (GET /docs/): not a request this contract declares; skipped',
    ]);
    expect(JSON.stringify(result)).not.toContain(KEY);
  });

  it('against a server with a fault: fails the entries it changes, by the contract and against the recorded body', async () => {
    const result = await runReplay({ file: harFile, baseUrl: faulty.url, document, sessionApiKey: KEY, timeoutMs: 5000 });
    expect(result.outcome).toBe('failed');
    const checks = result.suites[0]!.checks;
    expect(checks.map((check) => check.status)).toEqual(['failed', 'failed', 'passed', 'passed']);
    const messages = checks[0]!.findings.map((finding) => finding.message);
    expect(messages).toContainEqual(expect.stringMatching(/^contract: body: .*unexpected_field/));
    expect(messages).toContainEqual('body differs from the recorded one at $.items[0].unexpected_field: missing vs 1 (recorded vs now)');
  });

  it('sends the session key from the command line, never the recorded one', async () => {
    const result = await runReplay({ file: harFile, baseUrl: ours.url, document, timeoutMs: 5000 });
    const checks = result.suites[0]!.checks;
    expect(checks.every((check) => check.status === 'failed')).toBe(true);
    expect(checks[0]!.findings[0]!.message).toBe('status 401, recorded 200');
  });

  it.each([
    ['a HAR file of another version', { log: { version: '1.1', entries: [] } }, /is HAR "1\.1", not "1\.2"; record it again with `proxy --record`/],
    ['not HAR at all', { entries: [] }, /has no "log" object: it is not a HAR file/],
    [
      'nothing the contract declares',
      { log: { version: '1.2', entries: [{ request: { method: 'GET', url: 'http://x/health' }, response: { status: 200, content: {} } }] } },
      /nothing to replay in .*: none of its 1 entry is a request this contract declares/,
    ],
  ])('%s: cannot run, saying what to do', async (_name, content, problem) => {
    const file = path.join(work, 'bad.har');
    writeFileSync(file, JSON.stringify(content));
    const result = await runReplay({ file, baseUrl: ours.url, document, timeoutMs: 5000 });
    expect(result.outcome).toBe('cannot-run');
    expect(result.problem).toMatch(problem);
  });

  it('a server that does not answer: cannot run, naming it', async () => {
    const result = await runReplay({ file: harFile, baseUrl: 'http://127.0.0.1:9', document, timeoutMs: 2000 });
    expect(result.outcome).toBe('cannot-run');
    expect(result.problem).toMatch(/^Cannot reach the server \(.*\) at http:\/\/127\.0\.0\.1:9\/api\/.*\. Is it running\? Check --base-url\.$/);
  });

  it('an entry without what replay needs is skipped, naming it; the others are replayed', async () => {
    const har = JSON.parse(readFileSync(harFile, 'utf8')) as { log: { entries: unknown[] } };
    har.log.entries.splice(1, 0, { request: { method: 'GET' }, response: { status: 200 } });
    const file = path.join(work, 'one-bad-entry.har');
    writeFileSync(file, JSON.stringify(har));
    const result = await runReplay({ file, baseUrl: ours.url, document, sessionApiKey: KEY, timeoutMs: 5000 });
    expect(result.outcome).toBe('passed');
    expect(result.notes[0]).toBe('entry 2: no request.method and request.url; skipped');
    expect(result.suites[0]!.checks).toHaveLength(4);
  });

  it('from the command line (`run --replay`), with the run report formats: text and JUnit', async () => {
    const junit = path.join(work, 'replay.xml');
    const outcome = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/cli/contract.ts', 'run', '--replay', harFile, '--base-url', faulty.url, '--junit', junit],
        { cwd: path.resolve(__dirname, '../..'), env: { ...process.env, SESSION_API_KEY: KEY } },
        (error, stdout) => resolve({ code: error ? Number(error.code) : 0, stdout }),
      );
    });
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toContain(`replaying     ${harFile}`);
    expect(outcome.stdout).toContain('FAIL    replay.entry-1');
    const suites = elementsNamed(parseXml(readFileSync(junit, 'utf8')), 'testsuite');
    expect(suites.map((suite) => [suite.attributes['name'], suite.attributes['tests'], suite.attributes['failures']])).toEqual([
      ['replay', '4', '2'],
    ]);
  });
});
