import { timedGet } from '../../dev/bench/http-get';
import { runLoad } from '../../dev/bench/load';
import { sessionKeyHeaders } from '../../dev/bench/session-key';
import { startLiveServer, type LiveServer } from '../support/live-server';

describe('the bench with a session key', () => {
  const key = 'bench-key-0123456789';
  const searchPath = '/api/conversations/8f1a2b3c4d5e6f708192a3b4c5d6e7f8/events/search';
  let server: LiveServer;
  const previous = process.env['SESSION_API_KEY'];

  beforeAll(async () => {
    server = await startLiveServer([{ id: '8f1a2b3c4d5e6f708192a3b4c5d6e7f8', events: [] }], { sessionApiKeys: [key] });
  });
  afterAll(async () => {
    await server.stop();
  });
  afterEach(() => {
    if (previous === undefined) delete process.env['SESSION_API_KEY'];
    else process.env['SESSION_API_KEY'] = previous;
  });

  it('sends no key header when SESSION_API_KEY is unset', () => {
    expect(sessionKeyHeaders({})).toEqual({});
    expect(sessionKeyHeaders({ SESSION_API_KEY: key })).toEqual({ 'X-Session-API-Key': key });
  });

  it('single requests carry the key the server requires', async () => {
    delete process.env['SESSION_API_KEY'];
    expect((await timedGet(server.url + searchPath)).status).toBe(401);
    process.env['SESSION_API_KEY'] = key;
    expect((await timedGet(server.url + searchPath)).status).toBe(200);
  });

  it('load runs carry it too', async () => {
    process.env['SESSION_API_KEY'] = key;
    const figures = await runLoad({ url: server.url + searchPath, connections: 2, durationSeconds: 1 });
    expect(figures.failures).toBe(0);
    expect(figures.successes).toBeGreaterThan(0);
  });
});
