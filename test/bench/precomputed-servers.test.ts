import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { timedGet } from '../../dev/bench/http-get';
import type { PrecomputedRoute } from '../../dev/bench/precomputed-server';
import { type PrecomputedServerName, type ServerProcess, startPrecomputedServer } from '../../dev/bench/server-process';

const SEARCH_PATH = '/api/conversations/8f1a2b3c4d5e6f708192a3b4c5d6e7f8/events/search?limit=2';
const ROUTE: PrecomputedRoute = {
  path: SEARCH_PATH,
  contentType: 'application/json; charset=utf-8',
  body: Buffer.from('{"items":[],"next_page_id":null}'),
};
const REPO_ROOT = path.resolve(__dirname, '../..');

describe.each<PrecomputedServerName>(['baseline', 'framework floor'])('the %s server', (name) => {
  let logs: string;
  let server: ServerProcess;

  beforeAll(async () => {
    logs = mkdtempSync(path.join(tmpdir(), 'precomputed-'));
    server = await startPrecomputedServer(name, REPO_ROOT, [ROUTE], path.join(logs, 'server.log'));
  });
  afterAll(async () => {
    await server.stop();
    rmSync(logs, { recursive: true, force: true });
  });

  it('answers a route with exactly the bytes it was handed', async () => {
    const response = await timedGet(server.baseUrl + SEARCH_PATH);
    expect(response.status).toBe(200);
    expect(response.body.equals(ROUTE.body)).toBe(true);
  });

  it('answers another URL with 404', async () => {
    const response = await timedGet(server.baseUrl + SEARCH_PATH.replace('limit=2', 'limit=3'));
    expect(response.status).toBe(404);
  });
});

describe('the framework floor', () => {
  it('validates requests as our server does, so it pays what our server pays before the search', async () => {
    const logs = mkdtempSync(path.join(tmpdir(), 'precomputed-'));
    const server = await startPrecomputedServer('framework floor', REPO_ROOT, [ROUTE], path.join(logs, 'server.log'));
    try {
      const response = await timedGet(server.baseUrl + SEARCH_PATH.replace('limit=2', 'limit=0'));
      expect(response.status).toBe(422);
      expect(JSON.parse(response.body.toString('utf8'))).toMatchObject({ detail: [{ type: 'greater_than', loc: ['query', 'limit'] }] });
    } finally {
      await server.stop();
      rmSync(logs, { recursive: true, force: true });
    }
  });
});
