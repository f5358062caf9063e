/**
 * Keeping secrets out of what the catalog, the socket and the trajectory download answer.
 * The reference's rules (docs/reference-behaviour.md, "Secrets"): its state serialises
 * every secret field as `**********`, and its trajectory export replaces credential fields
 * and every encrypted value. A stored state may hold a key in plain text (saved without a
 * cipher by an older release) or encrypted (`gAAAAA...`, recoverable with the server's
 * key), so both are masked wherever they are.
 */

export const MASKED_SECRET = '**********';

/** Credential fields of an LLM configuration, and the settings' alias, wherever they appear. */
const CREDENTIAL_FIELDS = new Set(['api_key', 'aws_access_key_id', 'aws_secret_access_key', 'aws_session_token', 'llm_api_key']);
/** What the reference's cipher writes: a Fernet token. */
const ENCRYPTED_VALUE_PREFIX = 'gAAAAA';
/**
 * Fields whose every string is a secret in the reference's state model: an MCP server's
 * `env` and `headers`, its credentials' password and OAuth tokens and client secret, a
 * critic's key. An MCP credential's `value` (an object with a `strategy`) is one too.
 */
const SECRET_HOLDERS = new Set(['headers', 'env', 'password', 'critic_api_key', 'access_token', 'refresh_token', 'client_secret']);

function isSecretString(key: string | undefined, value: string): boolean {
  if (value === '' || value === MASKED_SECRET) return false;
  return value.startsWith(ENCRYPTED_VALUE_PREFIX) || (key !== undefined && CREDENTIAL_FIELDS.has(key));
}

/**
 * The trajectory export's rule, as the reference applies it to `.json` and `.jsonl` files:
 * credential fields and encrypted values anywhere. Changes `value` in place; true when
 * anything was masked.
 */
export function redactCredentials(value: unknown): boolean {
  let changed = false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (typeof item === 'string' && isSecretString(undefined, item)) {
        value[i] = MASKED_SECRET;
        changed = true;
      } else if (redactCredentials(item)) changed = true;
    }
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const [key, item] of Object.entries(record)) {
      if (typeof item === 'string' && isSecretString(key, item)) {
        record[key] = MASKED_SECRET;
        changed = true;
      } else if (redactCredentials(item)) changed = true;
    }
  }
  return changed;
}

/**
 * A conversation state as the catalog and the socket serve it: the export's rule, and
 * every string of the secret registry's sources (their values, lookup URLs and headers)
 * and of the other fields the reference's model holds as secrets, whatever their names. Changes
 * `state` in place.
 */
export function maskStateSecrets(state: Record<string, unknown>): void {
  redactCredentials(state);
  maskHolders(state);
  const registry = state['secret_registry'];
  if (typeof registry === 'object' && registry !== null) maskEveryString((registry as Record<string, unknown>)['secret_sources'], true);
}

function maskHolders(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) maskHolders(item);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  const credential = typeof record['strategy'] === 'string';
  for (const [key, item] of Object.entries(record)) {
    if (SECRET_HOLDERS.has(key) || (credential && key === 'value')) {
      if (typeof item === 'string') record[key] = maskString(item);
      else maskEveryString(item, false);
    } else maskHolders(item);
  }
}

/** Masks every non-empty string below `value`; under the secret registry, `kind` and `description` stay (they name the secret's type, not its content). */
function maskEveryString(value: unknown, keepNames: boolean): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (typeof value[i] === 'string') value[i] = maskString(value[i] as string);
      else maskEveryString(value[i], keepNames);
    }
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  for (const [key, item] of Object.entries(record)) {
    if (keepNames && (key === 'kind' || key === 'description')) continue;
    if (typeof item === 'string') record[key] = maskString(item);
    else maskEveryString(item, keepNames);
  }
}

function maskString(value: string): string {
  return value === '' ? value : MASKED_SECRET;
}
