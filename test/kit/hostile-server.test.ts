/**
 * The kit pointed at a hostile server, as the command line runs it: a page nested thousands deep,
 * an endless 200, a socket frame larger than the kit reads. Each ends as a report with the
 * cap or the depth as a finding (exit 1), never as "a bug in the kit" (exit 2), and the kit's
 * memory stays bounded by its caps.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocketServer } from 'ws';
import { KIT_READ_LIMITS } from '../../src/kit/http';
import type { RunResult } from '../../src/kit/run/run';
import { conversationId, eventId, message } from '../support/events';

const REPO = path.resolve(__dirname, '../..');
const CLI_TIMEOUT_MS = 120_000;

const ID = conversationId(1);
const EVENT = message({ id: eventId(1), timestamp: '2026-11-01T10:00:01.000000', source: 'user' }, { text: ['hi'] });
const DEPTH = 5_000;
const LEAKED_KEY = 'sk-kit-report-leak-0001';

type Mode = 'deep' | 'endless' | 'endless-to-a-body' | 'huge-frame' | 'leaky-error';

/** A server that answers the event search as `mode` says and everything else with a 404. */
async function hostileServer(mode: Mode): Promise<{ url: string; stop(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    // The batch get, the one request the kit sends with a body (not through fetch).
    const batchGet = req.url?.split('?')[0] === `/api/conversations/${ID}/events`;
    if (mode === 'endless-to-a-body' && batchGet) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.from(`${JSON.stringify(EVENT)},`.repeat(200));
      const more = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', more);
      res.write('[');
      more();
      return;
    }
    if (!req.url?.startsWith(`/api/conversations/${ID}/events/search`)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
      return;
    }
    if (mode === 'leaky-error') {
      res.writeHead(500, { 'content-type': 'application/json' }).end(`{"detail":"upstream failed","llm":{"api_key":"${LEAKED_KEY}"}}`);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (mode === 'deep') res.end(`{"items":[${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}],"next_page_id":null}`);
    else if (mode === 'endless') {
      res.write('{"items":[');
      const chunk = Buffer.from(`${JSON.stringify(EVENT)},`.repeat(200));
      const more = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', more);
      more();
    } else res.end(JSON.stringify({ items: [EVENT], next_page_id: null }));
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (ws) => ws.send(`{"id":"${'x'.repeat(KIT_READ_LIMITS.socketFrameBytes + 1024)}"}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise((resolve) => {
        for (const client of sockets.clients) client.terminate();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'kit-hostile-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function runAgainst(mode: Mode, extra: string[] = []): Promise<{ code: number; report: RunResult; stderr: string }> {
  const server = await hostileServer(mode);
  const report = path.join(work, `${mode}.json`);
  try {
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        'node',
        ['--import', 'tsx', 'src/cli/contract.ts', '--base-url', server.url, '--conversation-id', ID, '--json', report, ...extra],
        { cwd: REPO, timeout: CLI_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
        (error, _stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr }),
      );
    });
    return { code, report: JSON.parse(readFileSync(report, 'utf8')) as RunResult, stderr };
  } finally {
    await server.stop();
  }
}

function findingsOf(report: RunResult): string[] {
  return [
    ...(report.problem ? [report.problem] : []),
    ...report.suites.flatMap((suite) => suite.checks.flatMap((check) => check.findings.map((finding) => finding.message))),
  ];
}

test('a page nested 5,000 deep is a finding about the server', async () => {
  const { code, report } = await runAgainst('deep', ['--level', 'seed']);
  expect(code).toBe(1);
  const findings = findingsOf(report);
  expect(
    findings.some((message) => message.includes(`nests ${DEPTH + 2} levels deep, deeper than the kit reads (${KIT_READ_LIMITS.jsonDepth})`)),
  ).toBe(true);
  expect(findings.filter((message) => message.includes('a bug in the kit'))).toEqual([]);
});

test('an endless 200 is cut at the response cap and reported', async () => {
  const { code, report } = await runAgainst('endless', ['--level', 'seed']);
  expect(code).toBe(1);
  expect(findingsOf(report)).toContainEqual(
    expect.stringContaining(`the response is larger than the kit reads (${KIT_READ_LIMITS.responseBytes} bytes): it stopped reading there`),
  );
});

test('an endless 200 to a request with a body (the batch get) is cut at the response cap and reported too', async () => {
  // It was read without a cap: the kit grew until it ran out of memory.
  const { code, report } = await runAgainst('endless-to-a-body', ['--level', 'seed', '--only', 'operations.getConversationEventsByIds.valid']);
  expect(code).toBe(1);
  expect(findingsOf(report)).toContainEqual(
    expect.stringContaining(`the response is larger than the kit reads (${KIT_READ_LIMITS.responseBytes} bytes): it stopped reading there`),
  );
});

test('a socket frame past the frame cap is reported by the socket checks', async () => {
  const { code, report } = await runAgainst('huge-frame', ['--level', 'reference', '--only', 'ref.socket.resend-all']);
  expect(code).toBe(1);
  expect(findingsOf(report)).toContainEqual(
    expect.stringContaining(`a frame is larger than the kit reads (${KIT_READ_LIMITS.socketFrameBytes} bytes)`),
  );
});

test('a secret a server answers with is masked in the report', async () => {
  const { code, report } = await runAgainst('leaky-error', ['--level', 'seed']);
  expect(code).toBe(1);
  const text = JSON.stringify(report);
  expect(text).not.toContain(LEAKED_KEY);
  expect(findingsOf(report)).toContainEqual(expect.stringContaining('"api_key":"**********"'));
});
