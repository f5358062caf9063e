import http from 'node:http';
import { sessionKeyHeaders } from './session-key';

export interface TimedResponse {
  status: number;
  contentType: string | undefined;
  body: Buffer;
  /** From sending the request to the last byte of the body, in milliseconds. */
  elapsedMs: number;
}

/** Keeps one connection per caller open, as a real client would between requests. */
export function keepAliveAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: 1 });
}

/**
 * For requests made without an agent of their own: a connection each. Node's global agent
 * keeps connections alive, and one left idle while this process runs a long synchronous
 * step (sizeOnDisk over 100k files) outlives the server's keep-alive timeout: the server
 * closes it, this process has not yet seen the close, reuses it, and gets "socket hang up".
 */
const ONE_CONNECTION_EACH = new http.Agent({ keepAlive: false });

/**
 * GET `url` and read the whole body, timing the round trip. Rejects on a connection
 * error (for instance while a server is still starting), never on an HTTP status.
 */
export function timedGet(url: string, agent?: http.Agent): Promise<TimedResponse> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: agent ?? ONE_CONNECTION_EACH, headers: sessionKeyHeaders() }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: response.headers['content-type'],
          body: Buffer.concat(chunks),
          elapsedMs: performance.now() - started,
        }),
      );
    });
    request.on('error', reject);
  });
}

/** Like {@link timedGet}, but a status other than 200 is an error naming the URL and the body's start. */
export async function getOk(url: string, agent?: http.Agent): Promise<TimedResponse> {
  const response = await timedGet(url, agent);
  if (response.status !== 200) {
    throw new Error(`GET ${url} answered ${response.status}: ${response.body.toString('utf8', 0, 300)}`);
  }
  return response;
}

/** Parses a search page body; throws if it is not one. */
export function parseEventPage(body: Buffer): { items: { id?: string; timestamp?: string }[]; next_page_id: string | null } {
  const page = JSON.parse(body.toString('utf8')) as { items?: unknown; next_page_id?: unknown };
  if (!Array.isArray(page.items) || (page.next_page_id !== null && typeof page.next_page_id !== 'string')) {
    throw new Error(`Not an event page: ${body.toString('utf8', 0, 200)}`);
  }
  return { items: page.items as { id?: string; timestamp?: string }[], next_page_id: page.next_page_id };
}
