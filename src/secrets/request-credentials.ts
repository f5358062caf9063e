/**
 * Credentials a request or an answer carries outside any body: the session key and the
 * usual authorisation headers, and the query parameters clients put keys in. Recorded
 * traffic (the kit's HAR files, logs) masks their values: a recording is shared and
 * committed, and a key in it would leak.
 */

const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['x-session-api-key', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

const CREDENTIAL_QUERY_PARAMETER = /^(session_api_key|api_key|access_token|token)$/i;

/** Whether a header's value is a credential (names compare case-insensitively, as HTTP's do). */
export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase());
}

/** Whether a query parameter's value is a credential. */
export function isCredentialQueryParameter(name: string): boolean {
  return CREDENTIAL_QUERY_PARAMETER.test(name);
}
