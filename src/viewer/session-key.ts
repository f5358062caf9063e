/**
 * The session key, kept for this tab only (sessionStorage, never localStorage) and sent
 * as `X-Session-API-Key` by the client. It is never written into the page.
 */
const STORAGE_KEY = 'agent-server-session-api-key';

export function storedSessionKey(): string | undefined {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function storeSessionKey(key: string | undefined): void {
  try {
    if (key === undefined) sessionStorage.removeItem(STORAGE_KEY);
    else sessionStorage.setItem(STORAGE_KEY, key);
  } catch {
    // Storage refused (a private mode): the key then lasts until the page is left.
  }
}
