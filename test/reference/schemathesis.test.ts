import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { staleDictionaries } from '../../dev/schemathesis/dictionaries';
import { describeFindings, runSchemathesis } from '../../dev/schemathesis/run-schemathesis';
import { type ServerUnderTest, startOurServer } from '../../dev/schemathesis/servers-under-test';
import { loadOpenApiDocument } from '../../src/contract';

/*
 * Schemathesis (pinned in dev/python/toolsets.ts) with dev/schemathesis/schemathesis.toml: every
 * phase, positive and negative data, every default check, a fixed seed. Bounded here to keep the
 * run short; `npm run schemathesis` runs the configuration's full count.
 */

const EXAMPLES_PER_PHASE = 25;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let workDirectory: string;
let ours: ServerUnderTest;
beforeAll(async () => {
  workDirectory = mkdtempSync(path.join(os.tmpdir(), 'schemathesis-test-'));
  ours = await startOurServer();
});
afterAll(async () => {
  await ours?.stop();
  rmSync(workDirectory, { recursive: true, force: true });
});

test('the dictionaries hold the ids, kinds, sources and timestamps of sample-data/conversations', () => {
  const stale = staleDictionaries();
  expect({ stale, fix: stale.length > 0 ? 'npm run schemathesis -- --write-dictionaries' : 'none' }).toEqual({ stale: [], fix: 'none' });
});

describe('against our server over a copy of sample-data/conversations', () => {
  test('Schemathesis tests every operation of openapi.yaml and finds nothing', async () => {
    const run = await runSchemathesis({ baseUrl: ours.url, workDirectory: path.join(workDirectory, 'ours'), maxExamples: EXAMPLES_PER_PHASE });
    const operations = Object.entries(loadOpenApiDocument().paths).flatMap(([template, item]) =>
      Object.keys(item ?? {})
        .filter((key) => HTTP_METHODS.includes(key))
        .map((method) => `${method.toUpperCase()} ${template}`),
    );
    expect(run.testCases.map((testCase) => testCase.name)).toEqual(expect.arrayContaining([...operations, 'Stateful tests']));
    expect(describeFindings(run)).toBe('');
    // Anything else that made Schemathesis fail (a warning it was told to fail on, a crash) is in its output.
    expect({ exitCode: run.exitCode, output: run.exitCode === 0 ? '' : run.output.split('\n').slice(-30).join('\n') }).toEqual({
      exitCode: 0,
      output: '',
    });
  });
});

describe('against a server that answers every search with an empty page, whatever it is asked', () => {
  let acceptsAnything: Server;
  let url: string;
  beforeAll(async () => {
    acceptsAnything = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[],"next_page_id":null}');
    });
    await new Promise<void>((resolve) => acceptsAnything.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(acceptsAnything.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => acceptsAnything.close(() => resolve())));

  test('the same configuration fails it, and the hook drops only the values the contract accepts beyond their format', async () => {
    const run = await runSchemathesis({
      baseUrl: url,
      workDirectory: path.join(workDirectory, 'accepts-anything'),
      extraArguments: ['--include-operation-id', 'searchConversationEvents', '--phases', 'coverage', '--continue-on-failure'],
    });
    const rejected = run.findings.filter((finding) => finding.codes.includes('ST201'));
    expect(rejected).toHaveLength(1);
    expect(run.droppedByHooks).toBeGreaterThan(0);
    expect(run.exitCode).toBe(1);
    // The one reported names the parameter and has a curl line; what it sent, our server refuses with a 422.
    const reported = rejected[0]?.text ?? '';
    expect(reported).toMatch(/Invalid component: parameter `\w+`/);
    const sent = new URL(/curl -X GET '?([^' ]+)/.exec(reported)?.[1] ?? url);
    expect((await fetch(`${ours.url}${sent.pathname}${sent.search}`)).status).toBe(422);
  });
});
