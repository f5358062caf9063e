/**
 * Text shaped like a credential, for documents made for people to read and share (the
 * Markdown export): provider API keys, GitHub and Slack tokens, AWS access keys, bearer
 * tokens, private keys, and the value after a secret-named key (`api_key=...`,
 * `PASSWORD: ...`, `"token": "..."`). A conversation often carries keys a user pasted or a
 * tool printed that no field declares; in a shared document they are masked by their shape.
 */
import { MASKED_SECRET } from './secret-policy';

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
