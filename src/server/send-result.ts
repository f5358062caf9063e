import type { Response } from 'express';
import { SerializedJson } from './operations';

/**
 * Sends a handler's result. Stored JSON goes out as its bytes; with response validation on,
 * which only sees what passes through `res.json`, the same bytes are parsed and handed to it.
 */
export function sendResult(res: Response, result: { status: number; body: unknown }, validateResponses: boolean): void {
  const { status, body } = result;
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
 * by one than copied once, so those are joined.
 */
export function sendJsonParts(res: Response, status: number, parts: readonly Buffer[]): void {
  let length = 0;
  for (const part of parts) length += part.length;
  res.status(status).type('application/json').setHeader('Content-Length', length);
  if (parts.length > MAX_PARTS_WRITTEN_SEPARATELY) {
    res.end(Buffer.concat(parts, length));
    return;
  }
  for (const part of parts) res.write(part);
  res.end();
}

const MAX_PARTS_WRITTEN_SEPARATELY = 8;
