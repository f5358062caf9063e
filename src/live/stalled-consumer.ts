/**
 * What both sockets do with a consumer that stopped reading: a page of frames it has not
 * taken within its time means it stalled, and it is cut off (a reconnect resumes where it
 * left, so nothing is lost) rather than holding the server's memory.
 */
import { WebSocket } from 'ws';
import type { Logger } from '../log';

/** Whether `sent` settled within `timeoutMs`. */
export async function sentWithin(sent: Promise<void>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  const outcome = await Promise.race([sent, late]);
  clearTimeout(timer);
  return outcome !== 'late';
}

/** Ends a stalled consumer's socket with one warning naming the socket and the conversation. */
export function cutOffStalled(ws: WebSocket, logger: Logger, socket: 'event socket' | 'session socket', conversation: string): void {
  if (ws.readyState === WebSocket.CLOSED) return;
  logger.warn(`${socket} closed: its consumer stopped reading and its buffer filled`, { conversation, bytes_queued: ws.bufferedAmount });
  ws.terminate();
}
