/**
 * /docs as a reader uses it: opened in a real browser (Chromium, headless) through a proxy
 * that adds a path prefix, the page must send "Try it out" to the address it was opened
 * from, offer a session-key field when the server requires one, and accept the 32-hex id.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { loadOpenApiDocument } from '../../src/contract';
import { generateConversation } from '../../src/fixture';
import { docsDocument } from '../../src/server/docs-page';
import { conversationId } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';

const run = promisify(execFile);
const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';
const CONVERSATION = conversationId(40);
const KEY = 'docs-page-test-key';
const PREFIX = '/agents';

describe('the copy of the contract the docs page shows', () => {
  const contract = loadOpenApiDocument();
  type ShownParameter = { name: string; schema: { format?: string }; examples?: Record<string, { value: string }> };
  const conversationParameter = (document: typeof contract): ShownParameter | undefined => {
    const operation = document.paths['/api/conversations/{conversation_id}/events/search']?.['get'] as { parameters: ShownParameter[] } | undefined;
    return operation?.parameters.find((parameter) => parameter.name === 'conversation_id');
  };

  it('names no fixed server and accepts every id form the server accepts', () => {
    const shown = docsDocument(contract, { sessionKeyRequired: false });
    expect(shown['servers']).toBeUndefined();
    const parameter = conversationParameter(shown);
    expect(parameter?.schema.format).toBeUndefined();
    expect(Object.values(parameter?.examples ?? {}).map((example) => example.value)).toContainEqual(expect.stringMatching(/^[0-9a-f]{32}$/));
    expect(shown.components).not.toHaveProperty('securitySchemes');
  });

  it('offers the session-key header only when the server requires one, and leaves the contract as written', () => {
    const shown = docsDocument(contract, { sessionKeyRequired: true });
    expect(shown.components).toHaveProperty(
      'securitySchemes.SessionApiKey',
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Session-API-Key' }),
    );
    expect(shown['security']).toEqual([{ SessionApiKey: [] }]);
    expect(contract['security']).toEqual([]);
    expect(conversationParameter(contract)?.schema.format).toBe('uuid');
  });
});

describe('/docs in a browser behind a path prefix', () => {
  let server: LiveServer;
  let proxy: http.Server;
  let proxyUrl: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: install it (apt-get install chromium) or set CHROMIUM.`);
    server = await startLiveServer([{ id: CONVERSATION, events: generateConversation({ events: 5, seed: 'docs-page' }) }], { sessionApiKeys: [KEY] });
    const target = new URL(server.url);
    // What a reverse proxy does: serves the application under PREFIX and strips it on the way in.
    proxy = http.createServer((req, res) => {
      if (!req.url?.startsWith(`${PREFIX}/`)) {
        res.writeHead(404).end();
        return;
      }
      const forwarded = http.request(
        { host: target.hostname, port: target.port, path: req.url.slice(PREFIX.length), method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${PREFIX}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await server?.stop();
  });

  it('redirects /docs to /docs/ relative to the prefix', async () => {
    const response = await fetch(`${proxyUrl}/docs`, { redirect: 'manual' });
    expect(response.status).toBe(301);
    expect(new URL(response.headers.get('location') ?? '', `${proxyUrl}/docs`).href).toBe(`${proxyUrl}/docs/`);
  });

  it('sends Try it out to the prefixed address it was opened from, with a session-key field', async () => {
    const { stdout } = await run(
      CHROMIUM,
      ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--virtual-time-budget=15000', '--dump-dom', `${proxyUrl}/docs/`],
      { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
    );
    const servers = [...stdout.matchAll(/<option value="([^"]*)">[^<]*this server<\/option>/g)].map((match) => match[1]);
    expect(servers).toEqual([proxyUrl]);
    expect(stdout).toMatch(/class="btn authorize/);

    // What the page then sends for the id the start line prints, with the key entered.
    const hexId = CONVERSATION.replaceAll('-', '');
    const sent = await fetch(`${servers[0]}/api/conversations/${hexId}/events/search?limit=1`, { headers: { 'X-Session-API-Key': KEY } });
    expect(sent.status).toBe(200);
  });
});
