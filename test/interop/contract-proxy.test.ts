import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAgentServerClient } from '../../src/client';
import { type Event, loadOpenApiDocument, operationTable } from '../../src/contract';
import { stringify } from 'yaml';
import type { ProxySummary } from '../../src/kit/proxy/proxy';
import { FAULTS, startFaultInjector, type Fault, type FaultInjector, type UpstreamResponse } from '../kit/support/fault-injector';
import { startOurServer, type OurServer } from '../kit/support/our-server';
import { elementsNamed, parseXml } from '../kit/support/xml';
import { planFor, runPublishedClient } from './support/run-published-client';

/*
 * The validating proxy as a user runs it (the CLI in its own process), between the
 * published OpenHands client and a server: nothing to report in front of our server;
 * every injected fault reported, exit 1 and the JUnit file holding it in front of a faulty one.
 */
const REPO = path.resolve(__dirname, '../..');

interface RunningProxy {
  url: string;
  output: () => string;
  /** Sends SIGINT and resolves with the exit code. */
  stop(): Promise<number | null>;
}

function startProxyCli(args: string[]): Promise<RunningProxy> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/cli/contract.ts', 'proxy', ...args], { cwd: REPO });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the proxy did not start: ${stdout}${stderr}`)), 90_000);
    child.stdout!.on('data', () => {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      if (!url) return;
      clearTimeout(timer);
      resolve({
        url,
        output: () => stdout + stderr,
        stop: () => {
          child.kill('SIGINT');
          return exited;
        },
      });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the proxy exited with ${code} before listening: ${stdout}${stderr}`));
    });
  });
}

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/contract.ts', ...args], { cwd: REPO });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Several faults at once: each response hook in turn. */
function combined(...faults: Fault[]): Fault {
  return {
    response: (url: URL, response: UpstreamResponse) =>
      faults.reduce((current, fault) => (fault.response ? fault.response(url, current) : current), response),
  };
}

let ours: OurServer;
let events: Event[];
let work: string;
beforeAll(async () => {
  ours = await startOurServer({ events: 150, seed: 'proxy' });
  events = await createAgentServerClient({ baseUrl: ours.url }).listEvents(ours.conversationId);
  work = mkdtempSync(path.join(tmpdir(), 'contract-proxy-'));
});
afterAll(async () => {
  await ours.stop();
  rmSync(work, { recursive: true, force: true });
});

it('between the published client and our server: nothing violated, exit 0, coverage of what the client did', async () => {
  const proxy = await startProxyCli([
    '--target',
    ours.url,
    '--port',
    '0',
    '--json',
    path.join(work, 'clean.json'),
    '--junit',
    path.join(work, 'clean.xml'),
  ]);
  const outcome = await runPublishedClient(planFor(proxy.url, ours.conversationId, events));
  expect(outcome.all).toHaveLength(150);
  expect(outcome.batch).toEqual([events[1], null, events[2]]);
  const code = await proxy.stop();
  expect(proxy.output()).not.toContain('VIOLATION');
  expect(proxy.output()).toContain('PASSED: no exchange violated the contract');
  expect(code).toBe(0);

  const summary = JSON.parse(readFileSync(path.join(work, 'clean.json'), 'utf8')) as ProxySummary;
  expect(summary.violations).toEqual([]);
  const byId = Object.fromEntries(summary.coverage.operations.map((operation) => [operation.operationId, operation]));
  // Six searches, two pages for getEvents; five counts; three ids and a batch of three.
  expect(byId['searchConversationEvents']).toMatchObject({
    requests: 8,
    statusesSeen: ['200'],
    statusesNotSeen: ['401', '404', '422', '500', '503'],
  });
  // The plan never sends timestamp__lt to the search, and the coverage says so.
  expect(byId['searchConversationEvents']!.parametersNotExercised).toEqual(['timestamp__lt']);
  expect(byId['countConversationEvents']).toMatchObject({
    requests: 5,
    statusesSeen: ['200'],
    parametersExercised: ['conversation_id', 'kind', 'source', 'body', 'timestamp__lt'],
    parametersNotExercised: ['timestamp__gte'],
  });
  expect(byId['getConversationEvent']).toMatchObject({ requests: 6, statusesSeen: ['200', '404'] });
  expect(byId['searchConversationEvents']!.kindsSeen).toEqual(expect.arrayContaining([...new Set(events.map((event) => event.kind))]));
  expect(summary.exchanges).toBe(19);
  // One test case per operation of the contract.
  const operations = operationTable(loadOpenApiDocument()).operations.length;
  expect(parseXml(readFileSync(path.join(work, 'clean.xml'), 'utf8')).attributes).toMatchObject({ failures: '0', tests: String(operations) });
});

describe('in front of a server with injected faults', () => {
  let faulty: FaultInjector;
  beforeAll(async () => {
    faulty = await startFaultInjector(ours.url, combined(FAULTS.extraPropertyOnEvent, FAULTS.emptyStringAtEnd, FAULTS.unknownEventIdIs500));
  });
  afterAll(() => faulty.stop());

  it('reports each fault as it happens and in the summary, exits 1, and the JUnit file holds them', async () => {
    const junitFile = path.join(work, 'faults.xml');
    const proxy = await startProxyCli(['--target', faulty.url, '--port', '0', '--junit', junitFile, '--json', path.join(work, 'faults.json')]);
    const outcome = await runPublishedClient(planFor(proxy.url, ours.conversationId, events));
    expect(outcome.batch).toEqual({ error: expect.stringContaining('500') });
    const code = await proxy.stop();
    const output = proxy.output();
    expect(code).toBe(1);
    expect(output).toMatch(/VIOLATION #\d+ GET \/api\/conversations\/\w+\/events\/search\?limit=100 -> 200 \(searchConversationEvents\)/);
    expect(output).toMatch(/- body: \/items\/0 must NOT have additional properties \("unexpected_field"\) \[\w+\]/);
    expect(output).toContain('- next_page_id is "": a client testing `!== null` loops forever');
    expect(output).toContain("- the server answered 500: a client's request must never get a 5xx");
    expect(output).toMatch(/reproduce: curl -sS -g 'http:\/\/127\.0\.0\.1:\d+\/api\/conversations\/\w+\/events\/no-such-event'/);
    expect(output).toContain('FAILED:');

    const junit = parseXml(readFileSync(junitFile, 'utf8'));
    const failures = elementsNamed(junit, 'failure');
    expect(failures.map((failure) => failure.attributes['message'])).toEqual([
      expect.stringContaining('must NOT have additional properties'),
      expect.stringContaining('the server answered 500'),
    ]);
    expect(failures[0]!.text).toContain('next_page_id is ""');
    const summary = JSON.parse(readFileSync(path.join(work, 'faults.json'), 'utf8')) as ProxySummary;
    expect(summary.coverage.operations.find((operation) => operation.operationId === 'getConversationEvent')!.statusesSeen).toEqual(['200', '500']);
  });
});

describe('in front of a server that accepts what the contract rejects', () => {
  let lenient: FaultInjector;
  beforeAll(async () => {
    lenient = await startFaultInjector(ours.url, FAULTS.limit101Accepted);
  });
  afterAll(() => lenient.stop());

  it('a 2xx to a request breaking a parameter rule is a violation; the spellings the reference accepts are not', async () => {
    const proxy = await startProxyCli(['--target', lenient.url, '--port', '0']);
    const id = ours.conversationId;
    const hyphenated = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
    const accepted = [
      `/api/conversations/${id}/events/search?limit=101`,
      `/api/conversations/${hyphenated}/events/search?limit=%205`,
      `/api/conversations/${id}/events/search?limit=100.0`,
      `/api/conversations/${id}/events/search?timestamp__gte=2024-01-01T00:00:00&sort_order=TIMESTAMP_DESC`,
    ];
    let code: number | null;
    try {
      for (const target of accepted) {
        const answered = await fetch(`${proxy.url}${target}`);
        await answered.text();
        expect({ target, status: answered.status }).toEqual({ target, status: 200 });
      }
    } finally {
      code = await proxy.stop();
    }
    expect(code).toBe(1);
    const output = proxy.output();
    expect(output.match(/VIOLATION #/g)).toHaveLength(1);
    expect(output).toContain(
      '- query parameter limit "101" is above the maximum 100, yet the request was answered 200: the contract answers it with 422',
    );
  });
});

it('--contract judges with an edited document: a page larger than its new default limit is a violation', async () => {
  const edited = path.join(work, 'edited.yaml');
  const document = loadOpenApiDocument();
  const search = document.paths['/api/conversations/{conversation_id}/events/search'] as {
    get: { parameters: { name: string; schema: Record<string, unknown> }[] };
  };
  search.get.parameters.find((parameter) => parameter.name === 'limit')!.schema['default'] = 50;
  writeFileSync(edited, stringify(document));
  const proxy = await startProxyCli(['--target', ours.url, '--port', '0', '--contract', edited]);
  const answered = await fetch(`${proxy.url}/api/conversations/${ours.conversationId}/events/search`);
  expect(answered.status).toBe(200);
  await answered.text();
  expect(await proxy.stop()).toBe(1);
  expect(proxy.output()).toContain('- the page holds 100 events, more than limit 50');
});

describe('exit 2 when it cannot run', () => {
  it('a target nobody listens on', async () => {
    const outcome = await runCli(['proxy', '--target', 'http://127.0.0.1:9', '--port', '0']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain(
      'contract proxy: cannot reach the target http://127.0.0.1:9 (ECONNREFUSED). Is the implementation running? Check --target.',
    );
  });

  it('a port in use', async () => {
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      const outcome = await runCli(['proxy', '--target', ours.url, '--port', String(port)]);
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toContain(`contract proxy: port ${port} is in use; pick another with --port, or 0 for any free port`);
    } finally {
      taken.close();
    }
  });

  it('a target that is not a URL', async () => {
    const outcome = await runCli(['proxy', '--target', 'localhost:8000']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('--target must be an http(s) URL, got "localhost:8000"');
  });
});

it('passes the session key through and never writes it down', async () => {
  const key = 'proxy-test-session-key-7f3a';
  const keyed = await startOurServer({ events: 20, seed: 'proxy-keys', sessionApiKeys: [key] });
  try {
    const jsonFile = path.join(work, 'keyed.json');
    const proxy = await startProxyCli(['--target', keyed.url, '--port', '0', '--json', jsonFile]);
    const all = await createAgentServerClient({ baseUrl: keyed.url, sessionApiKey: key }).listEvents(keyed.conversationId);
    const outcome = await runPublishedClient({ ...planFor(proxy.url, keyed.conversationId, all), apiKey: key });
    expect(outcome.all).toEqual(all);
    const refused = await fetch(`${proxy.url}/api/conversations/${keyed.conversationId}/events/search`);
    expect(refused.status).toBe(401);
    expect(await proxy.stop()).toBe(0);
    expect(proxy.output()).not.toContain(key);
    expect(readFileSync(jsonFile, 'utf8')).not.toContain(key);
    expect(readFileSync(jsonFile, 'utf8')).toContain('"401"');
  } finally {
    await keyed.stop();
  }
});
