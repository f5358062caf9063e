import type { Response } from 'express';
import { SerializedJson, StreamedFile } from './operations';

/**
 * Sends a handler's result. Stored JSON goes out as its bytes; with response validation on,
 * which only sees what passes through `res.json`, the same bytes are parsed and handed to it.
 */
export function sendResult(res: Response, result: { status: number; body: unknown }, validateResponses: boolean): void | Promise<void> {
  const { status, body } = result;
  if (body instanceof StreamedFile) return sendFile(res, status, body);
  if (!(body instanceof SerializedJson)) {
    res.status(status).json(body);
    return;
  }
  if (validateResponses) res.status(status).json(JSON.parse(Buffer.concat(body.parts).toString('utf8')));
  else sendJsonParts(res, status, body.parts);
}

/**
 * Sends JSON pieces as one response, in one go: Node corks the socket for the writes of
 * one tick. Many small pieces (a sparse filter, a descending page) cost more written one
 * by one than copied once, so those are joined, into a buffer taken from a few kept for
 * it: a page is a few hundred kilobytes, and a fresh buffer of that size is memory the
 * kernel maps and faults in for every response, which cost more than the copy.
 */
export function sendJsonParts(res: Response, status: number, parts: readonly Buffer[]): void {
  let length = 0;
  for (const part of parts) length += part.length;
  // What res.type('application/json') sets, without its look-up in the MIME table on every response.
  res.status(status).setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', length);
  if (parts.length <= MAX_PARTS_WRITTEN_SEPARATELY) {
    for (const part of parts) res.write(part);
    res.end();
    return;
  }
  const joined = length <= JOINED_BODY_BYTES ? (idleJoinedBodies.pop() ?? Buffer.allocUnsafeSlow(JOINED_BODY_BYTES)) : Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const part of parts) at += part.copy(joined, at);
  // Written out once the response finishes: only then may the buffer be reused. A response
  // that never finishes (the client went away) leaves its buffer to the garbage collector.
  res.end(joined.subarray(0, length), () => {
    if (joined.length === JOINED_BODY_BYTES && idleJoinedBodies.length < MAX_IDLE_JOINED_BODIES) idleJoinedBodies.push(joined);
  });
}

const MAX_PARTS_WRITTEN_SEPARATELY = 8;
/** Large enough for a page of 100 typical events; a larger body gets a buffer of its own. */
const JOINED_BODY_BYTES = 512 * 1024;
/** One per connection a busy client keeps open, about. */
const MAX_IDLE_JOINED_BODIES = 16;
const idleJoinedBodies: Buffer[] = [];

/**
 * Writes a file's chunks as they come, waiting for each write to drain. A client that goes
 * away ends the walk (the chunks' generator is returned, so the store stops reading). A
 * failure after the first byte cannot become an error response any more: it rejects, and
 * the error path, seeing the headers sent, closes the connection, so the client sees a
 * cut-off transfer rather than a file that looks whole.
 */
async function sendFile(res: Response, status: number, file: StreamedFile): Promise<void> {
  const iterator = file.chunks[Symbol.asyncIterator]();
  // The first chunk is read before anything is sent, so that a store that fails at once still answers with an error status.
  let next = await iterator.next();
  res.status(status).setHeader('Content-Type', file.contentType);
  res.setHeader('Content-Disposition', `attachment; filename="${file.fileName.replace(/["\\\r\n]/g, '_')}"`);
  try {
    while (!next.done) {
      if (res.destroyed) return;
      if (!res.write(next.value)) await drained(res);
      next = await iterator.next();
    }
    res.end();
  } finally {
    if (!next.done) await iterator.return?.();
  }
}

function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
