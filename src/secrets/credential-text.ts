/**
 * Text shaped like a credential, for documents made for people to read and share (the
 * Markdown export): provider API keys, GitHub and Slack tokens, AWS access keys, bearer
 * tokens, private keys, and the value after a secret-named key (`api_key=...`,
 * `PASSWORD: ...`, `"token": "..."`). A conversation often carries keys a user pasted or a
 * tool printed that no field declares; in a shared document they are masked by their shape.
 */
import { ENCRYPTED_RUN, HOLDER_FIELDS, KnownSecrets, MASKED_SECRET, SECRET_FIELDS } from './secret-policy';

const CREDENTIAL_SHAPES: readonly RegExp[] = [
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(?:sk|pk|rk)-(?:[A-Za-z0-9_-]+-)?[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\b[Bb]earer\s+[A-Za-z0-9._~+/=-]{12,}/g,
];

const SECRET_ASSIGNMENT =
  /\b([A-Za-z0-9_]*(?:api[_-]?key|secret|password|passwd|token|credential)[A-Za-z0-9_]*)(["']?\s*[:=]\s*["']?)([^\s"',;*]{4,})/gi;

/** `text` with every credential-shaped run masked. */
export function maskCredentialText(text: string): string {
  let result = text;
  for (const shape of CREDENTIAL_SHAPES) result = result.replace(shape, MASKED_SECRET);
  return result.replace(SECRET_ASSIGNMENT, (_match, key: string, separator: string) => `${key}${separator}${MASKED_SECRET}`);
}

/**
 * Text that may hold JSON but is not parsed, such as the start of a response body a report
 * quotes: the values of the policy's secret fields (`"api_key": "..."`, every value of an
 * `"env"` or `"headers"` object), Fernet tokens, credential-shaped runs and the known
 * values, masked.
 */
export function maskSecretText(text: string, known: KnownSecrets = KnownSecrets.NONE): string {
  const fields = known
    .maskIn(text)
    .replace(SECRET_MEMBER, (_match, name: string, colon: string) => `"${name}"${colon}"${MASKED_SECRET}"`)
    .replace(SECRET_HOLDER, (holder: string) => holder.replace(STRING_MEMBER, (_match, colon: string) => `${colon}"${MASKED_SECRET}"`));
  return maskCredentialText(fields.replace(ENCRYPTED_RUN, MASKED_SECRET));
}

const JSON_STRING = String.raw`"(?:[^"\\]|\\.)*"`;
const SECRET_MEMBER = new RegExp(
  String.raw`"(${[...SECRET_FIELDS].filter((field) => !HOLDER_FIELDS.has(field)).join('|')})"(\s*:\s*)${JSON_STRING}`,
  'g',
);
const SECRET_HOLDER = new RegExp(String.raw`"(?:${[...HOLDER_FIELDS].join('|')})"\s*:\s*\{[^{}]*\}`, 'g');
const STRING_MEMBER = new RegExp(String.raw`(:\s*)${JSON_STRING}`, 'g');

const SECRET_NAME = /key|token|secret|password|passwd|auth|credential|session/i;
const SECRET_VALUE = /^(sk|pk|rk|ghp|gho|xox[abp])[-_][A-Za-z0-9_-]{8,}|^Bearer\s/;

/**
 * Whether a request value must not be echoed in an error (a 422's `input`): its parameter's
 * name says it holds a secret, or it starts like a key. The reference strips secrets from
 * `input`; this errs on the side of leaving a value out.
 */
export function looksSecret(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || SECRET_VALUE.test(value);
}
