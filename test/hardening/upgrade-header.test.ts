/**
 * A request asking to upgrade anything but the events socket is answered as plain HTTP/1.1:
 * `curl --http2` sends `Upgrade: h2c` on every request, and used to get a bare 404 and a
 * closed connection.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { conversationId, eventId, message } from '../support/events';
import { type LiveServer, startLiveServer } from '../support/live-server';
import { openTestSocket, socketUrl } from '../support/socket-client';
import { exchange } from './support/raw-http';

const ID = conversationId(1);
let server: LiveServer;

beforeAll(async () => {
  server = await startLiveServer([
    { id: ID, events: [message({ id: eventId(1), timestamp: '2026-11-01T10:00:01', source: 'user' }, { text: ['hi'] })] },
  ]);
});

afterAll(() => server.stop());

test('curl --http2 gets /alive and a page as HTTP/1.1 answers', async () => {
  for (const [target, body] of [
    ['/alive', '{"status":"ok"}'],
    [`/api/conversations/${ID}/events/count`, '1'],
  ] as const) {
    const { stdout } = await promisify(execFile)('curl', ['--silent', '--show-error', '--http2', '--include', `${server.url}${target}`]);
    const [head, answer] = stdout.split('\r\n\r\n');
    expect(head!.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(head).toMatch(/\r\nConnection: close(\r\n|$)/i);
    expect(answer).toBe(body);
  }
});

test('an upgrade to a made-up protocol off the socket path is ignored, on any path', async () => {
  const request = (target: string) =>
    Buffer.from(
      `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n`,
    );
  const alive = (await exchange(server.url, request('/alive'), 5000)).toString('latin1');
  expect(alive).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{"status":"ok"\}$/);
  const missing = (await exchange(server.url, request('/no-such-page'), 5000)).toString('latin1');
  expect(missing).toMatch(/^HTTP\/1\.1 404 Not Found\r\n[\s\S]*\r\n\r\n\{"detail":"Not Found"\}$/);
  const websocketElsewhere = (
    await exchange(server.url, Buffer.from('GET /alive HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n'), 5000)
  ).toString('latin1');
  expect(websocketElsewhere).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"status":"ok"\}$/);
});

test('the events socket still upgrades', async () => {
  const socket = openTestSocket(socketUrl(server.url, ID, 'resend_mode=all'));
  const frames = await socket.framesArrived(2);
  socket.ws.close();
  expect(JSON.parse(frames[1]!)).toMatchObject({ id: eventId(1) });
});
