/**
 * What an export leaves out of the text a person reads: values that look like credentials
 * (provider API keys, GitHub and Slack tokens, AWS access keys, bearer tokens, private
 * keys, `password=...` style assignments) and, in JSON, `encrypted_content` and the values
 * of keys whose name says they hold a secret. A conversation often carries the keys a
 * user pasted or a tool printed; a file made to be shared must not.
 */

const REDACTED = '[redacted]';

const SECRET_PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(?:sk|pk|rk)-(?:[A-Za-z0-9_-]+-)?[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\b[Bb]earer\s+[A-Za-z0-9._~+/=-]{12,}/g,
];

/** `api_key=...`, `PASSWORD: ...`, `"token": "..."`: the value after a secret-named key. */
const SECRET_ASSIGNMENT =
  /\b([A-Za-z0-9_]*(?:api[_-]?key|secret|password|passwd|token|credential)[A-Za-z0-9_]*)(["']?\s*[:=]\s*["']?)([^\s"',;]{4,})/gi;

const SECRET_KEY_NAME = /api[_-]?key|secret|password|passwd|token|credential|authorization/i;

export function redactSecrets(text: string): string {
  let result = text;
  for (const pattern of SECRET_PATTERNS) result = result.replace(pattern, REDACTED);
  return result.replace(SECRET_ASSIGNMENT, (_match, key: string, separator: string) => `${key}${separator}${REDACTED}`);
}

/**
 * Indented JSON without `encrypted_content`, with every secret-named key's string value
 * redacted and every other string passed through `redactSecrets`.
 */
export function redactedJson(value: unknown): string {
  const json = JSON.stringify(
    value,
    (key, inner: unknown) => {
      if (key === 'encrypted_content') return undefined;
      if (typeof inner === 'string') {
        if (SECRET_KEY_NAME.test(key) && !/tokens?_(?:ids?|count)|max_tokens|_tokens$/i.test(key)) return REDACTED;
        return redactSecrets(inner);
      }
      return inner;
    },
    2,
  );
  return json ?? String(value);
}
