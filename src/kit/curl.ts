import { SESSION_KEY_HEADER } from './http';

/**
 * A `curl` command that repeats a request. The session key is never written out: the
 * line reads it from `$SESSION_API_KEY`, in double quotes so the shell expands it. `-g`
 * stops curl from treating `{}` and `[]` in the URL as globs.
 */
export function curlLine(url: string, withSessionKey: boolean): string {
  const header = withSessionKey ? ` -H "${SESSION_KEY_HEADER}: $SESSION_API_KEY"` : '';
  return `curl -sS -g${header} ${shellQuote(url)}`;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
