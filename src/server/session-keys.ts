import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { HttpError } from './errors';

export const SESSION_KEY_HEADER = 'X-Session-API-Key';

/**
 * Session keys the way the reference reads them: `SESSION_API_KEY`, then
 * `OH_SESSION_API_KEYS_0`, `OH_SESSION_API_KEYS_1`, ... up to the first missing index.
 */
export function sessionKeysFromEnv(env: NodeJS.ProcessEnv): string[] {
  const keys: string[] = [];
  if (env['SESSION_API_KEY']) keys.push(env['SESSION_API_KEY']);
  for (let i = 0; env[`OH_SESSION_API_KEYS_${i}`] !== undefined; i++) {
    const key = env[`OH_SESSION_API_KEYS_${i}`];
    if (key) keys.push(key);
  }
  return keys;
}

/**
 * Requires `X-Session-API-Key` to equal one of the keys, else 401. Keys are compared as
 * SHA-256 digests with a constant-time comparison, so neither their content nor their
 * length leaks through timing; every key is compared on every request.
 */
export function requireSessionKey(keys: readonly string[]): RequestHandler {
  const digests = keys.map(digest);
  return (req, _res, next) => {
    const offered = req.get(SESSION_KEY_HEADER);
    if (offered === undefined || !digestMatches(digests, offered)) throw new HttpError(401, { detail: 'Unauthorized' });
    next();
  };
}

/** Whether `offered` is one of the keys, compared as requireSessionKey compares (the event socket's check). */
export function sessionKeyMatches(keys: readonly string[], offered: string): boolean {
  return digestMatches(keys.map(digest), offered);
}

function digestMatches(digests: readonly Buffer[], offered: string): boolean {
  const offeredDigest = digest(offered);
  let accepted = false;
  for (const candidate of digests) accepted = timingSafeEqual(candidate, offeredDigest) || accepted;
  return accepted;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
