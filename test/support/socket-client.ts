/** A test's side of the events socket: every frame received, and how the socket closed. */
import WebSocket from 'ws';

export interface TestSocket {
  ws: WebSocket;
  frames: string[];
  /** Resolves with the close code and reason once the socket is closed. */
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves once `count` frames have arrived (rejects when the socket closes first). */
  framesArrived(count: number): Promise<string[]>;
  /** Resolves when the socket has opened (rejects when the handshake fails, with the answer's status and body). */
  opened: Promise<void>;
}

export function openTestSocket(url: string, headers: Record<string, string> = {}): TestSocket {
  const ws = new WebSocket(url, { headers });
  const frames: string[] = [];
  const waiters: { count: number; resolve: (frames: string[]) => void; reject: (error: Error) => void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      if (frames.length < waiter.count) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(frames.slice(0, waiter.count));
    }
  };
  ws.on('message', (data) => {
    frames.push(String(data));
    check();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      for (const waiter of waiters.splice(0))
        waiter.reject(new Error(`socket closed (${code} ${String(reason)}) after ${frames.length} frames, ${waiter.count} awaited`));
      resolve({ code, reason: String(reason) });
    });
  });
  ws.on('error', () => undefined);
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_request, response) => {
      const body: Buffer[] = [];
      response.on('data', (chunk: Buffer) => body.push(chunk));
      response.on('end', () => reject(new Error(`handshake answered ${response.statusCode} ${Buffer.concat(body).toString()}`.trim())));
    });
  });
  return {
    ws,
    frames,
    closed,
    opened,
    framesArrived(count) {
      return new Promise((resolve, reject) => {
        waiters.push({ count, resolve, reject });
        check();
      });
    },
  };
}

/** The events socket's address on a server at `httpUrl`. */
export function socketUrl(httpUrl: string, conversationId: string, query = ''): string {
  return `${httpUrl.replace(/^http/, 'ws')}/sockets/events/${conversationId}${query ? `?${query}` : ''}`;
}
