/**
 * HTTP/1.1 requests written byte for byte on a socket. `fetch` and `http.request` normalise
 * or refuse what a hostile client sends: `http.request({ path })` throws
 * ERR_UNESCAPED_CHARACTERS for a control character, a space or anything above U+00FF, and
 * `fetch` re-encodes the URL. Here the request target goes out exactly as given (as
 * latin1, one byte per character), so the server's own parser is what is tested.
 */
import net from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names in lower case; the last value wins. */
  headers: Record<string, string>;
  body: string;
}

export interface RawRequestOptions {
  headers?: readonly (readonly [string, string])[];
  /**
   * The request fails when the whole response has not arrived by then; only for a test whose
   * subject is a time limit. Without it the answer is awaited until the server closes the
   * connection, and a server that never does is caught by jest's hang guard: a fixed clock
   * here would fail a busy machine, not a wrong server.
   */
  timeoutMs?: number;
}

/** `GET <target> HTTP/1.1` with `Connection: close`, answered in full (or rejected after `timeoutMs`, when given). */
export function rawGet(baseUrl: string, target: string, options: RawRequestOptions = {}): Promise<RawResponse> {
  const headerLines = [['Host', 'localhost'], ['Connection', 'close'], ...(options.headers ?? [])].map(([name, value]) => `${name}: ${value}\r\n`);
  return exchange(baseUrl, Buffer.from(`GET ${target} HTTP/1.1\r\n${headerLines.join('')}\r\n`, 'latin1'), options.timeoutMs).then(parseResponse);
}

/** Sends `bytes` and resolves with everything the server wrote, once it closes the connection. */
export function exchange(baseUrl: string, bytes: Buffer, timeoutMs?: number): Promise<Buffer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            socket.destroy();
            reject(new Error(`no complete answer within ${timeoutMs} ms to ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`));
          }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    // Written without half-closing: Node's server drops a request still in flight when the
    // client shuts its side down (docs/hardening.md), and no real client does that.
    socket.write(bytes);
  });
}

function parseResponse(bytes: Buffer): RawResponse {
  const text = bytes.toString('latin1');
  const headEnd = text.indexOf('\r\n\r\n');
  if (headEnd < 0) throw new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = '', ...headerLines] = text.slice(0, headEnd).split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine);
  if (!status) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rawBody = bytes.subarray(Buffer.byteLength(text.slice(0, headEnd + 4), 'latin1'));
  const body = headers['transfer-encoding'] === 'chunked' ? dechunk(rawBody) : rawBody;
  return { status: Number(status[1]), headers, body: body.toString('utf8') };
}

function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
