/**
 * The one secret policy: what of a stored conversation never leaves the server in clear,
 * whichever way it leaves (pages, get-by-id, socket frames, catalog, exports, the trajectory
 * zip, logs, the kit's and the proxy's reports). Every masked string becomes `**********`,
 * as the reference serialises a secret field.
 *
 * The fields are the agent SDK's own (read from its models, 1.58.2): the LLM's secret fields
 * (`LLM_SECRET_FIELDS`: `api_key` and the AWS credentials) wherever an LLM sits (agent,
 * condenser, critic, profiles), the settings' `llm_api_key` and `critic_api_key`, an MCP
 * server's `env` and `headers` (every value), an MCP credential's `password`, `client_secret`,
 * `access_token`, `refresh_token` and `value`, and every value of the secret registry
 * (`secret_registry.secret_sources`: a static secret's value, a lookup's URL and headers;
 * only `kind` and `description` name rather than hold the secret), the same of the `secrets`
 * a conversation was started with and an agent's context holds, and an ACP agent's
 * `acp_resume_session_id`. Any string that is a Fernet
 * token (`gAAAAA...`) is ciphertext made with the server's key, so it is masked wherever it
 * is, as the reference's trajectory export masks it, and inside any text. Nothing here walks by recursion: a
 * value nested any number of levels deep is masked.
 *
 * A conversation's known secrets are the clear values its saved state holds in those fields
 * (`KnownSecrets`): they are masked inside any text of that conversation, such as a tool's
 * output that echoes a token.
 */

export const MASKED_SECRET = '**********';

/** Fields whose value is a secret wherever they appear: a string is masked, and every string inside an object or list. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'api_key',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
  'llm_api_key',
  'critic_api_key',
  'password',
  'client_secret',
  'access_token',
  'refresh_token',
  'acp_resume_session_id',
  'env',
  'headers',
]);
/** Those of them that hold a map of secrets (every value a secret) rather than one. */
export const HOLDER_FIELDS: ReadonlySet<string> = new Set(['env', 'headers']);
/**
 * Maps of secrets by name whose values may be sources (objects naming their `kind`): the secret
 * registry's sources, and the `secrets` of a conversation's start request and of an agent's
 * context (a clear string, or a source). Every string below is a secret but these, which name it.
 */
const SOURCE_FIELDS: ReadonlySet<string> = new Set(['secret_sources', 'secrets']);
const SOURCE_NAMES: ReadonlySet<string> = new Set(['kind', 'description']);
/** An MCP credential (an object with a `strategy`) holds its secret in `value`. */
export const CREDENTIAL_MARK = 'strategy';
export const CREDENTIAL_VALUE = 'value';
/** What the reference's cipher writes: a Fernet token. */
export const ENCRYPTED_VALUE_PREFIX = 'gAAAAA';
/**
 * Where a model provider's own ciphertext sits (a reasoning item's encrypted reasoning, a
 * Fernet token made with the provider's key, not the agent server's): a client needs it as
 * stored to continue the conversation with that provider, so it is served as it is, except
 * where `maskProviderCiphertext` asks otherwise (the trajectory zip, as the reference's).
 */
const PROVIDER_CIPHERTEXT = 'encrypted_content';
/**
 * Known values shorter than this are not looked for in text: they are placeholders (`x`,
 * `none`), and masking them would garble ordinary words.
 */
const MIN_KNOWN_SECRET_LENGTH = 6;

export interface ByteScan {
  pattern: RegExp;
  reach: number;
}

/** How a string is judged, from the fields above it. */
export enum Scope {
  /** Masked only when encrypted or holding a known secret. */
  Open,
  /** Every non-empty string masked. */
  Secret,
  /** As Secret, under a map of secrets (`env`, `headers`), which also holds ordinary values (`Accept: application/json`). */
  Holder,
  /** Under the secret registry's sources: every string but a source's `kind` and `description`. */
  Sources,
}

/** The clear secret values of one conversation, looked for in all its text. */
export class KnownSecrets {
  static readonly NONE = new KnownSecrets([]);

  /** Longest first, so that a value inside a longer one does not leave the rest of the longer one. */
  readonly values: readonly string[];

  constructor(values: Iterable<string>) {
    this.values = [...new Set([...values].filter((value) => value.length >= MIN_KNOWN_SECRET_LENGTH && value !== MASKED_SECRET))].sort(
      (a, b) => b.length - a.length,
    );
  }

  private readonly scans: (ByteScan | undefined)[] = [undefined, undefined];
  private plainTextScan: ByteScan | undefined;

  /**
   * What in stored JSON bytes, read as latin1 (one character a byte), may be something the
   * policy masks: one expression, so the bytes are scanned once (see mayHoldSecrets), and
   * the most characters a match spans, looking behind included.
   */
  byteScan(includingProviderCiphertext: boolean): ByteScan {
    const slot = includingProviderCiphertext ? 1 : 0;
    if (this.scans[slot]) return this.scans[slot];
    const names = [...SECRET_FIELDS, ...SOURCE_FIELDS, CREDENTIAL_MARK];
    const ciphertextAfter = `"${PROVIDER_CIPHERTEXT}":"`;
    // Each value as JSON writes it, and as it is (bytes that are not JSON are masked as they are: maskInBytes).
    const values = [...new Set([...this.values.map(jsonEscaped), ...this.values].map((value) => Buffer.from(value, 'utf8').toString('latin1')))];
    const pattern = new RegExp(
      [
        `"(?:${names.join('|')})"`,
        // An escape could spell any name or value.
        '\\\\u',
        includingProviderCiphertext ? ENCRYPTED_VALUE_PREFIX : `(?<!${ciphertextAfter})${ENCRYPTED_VALUE_PREFIX}`,
        ...values.map(escapeRegExp),
      ].join('|'),
    );
    const spans = [
      ...names.map((name) => name.length + 2),
      ciphertextAfter.length + ENCRYPTED_VALUE_PREFIX.length,
      ...values.map((value) => value.length),
    ];
    this.scans[slot] = { pattern, reach: Math.max(...spans) };
    return this.scans[slot];
  }

  /**
   * What in text that is not JSON, its bytes read as latin1, may be a known value: the values
   * as they are written, for text masked by `maskIn` only.
   */
  textScan(): ByteScan {
    if (this.plainTextScan) return this.plainTextScan;
    const values = this.valuesAsBytes();
    this.plainTextScan = {
      pattern: values.length > 0 ? new RegExp(values.map(escapeRegExp).join('|')) : NEVER,
      reach: Math.max(0, ...values.map((value) => value.length)),
    };
    return this.plainTextScan;
  }

  /** Whether `other` holds the same values: text judged against one is judged alike against the other. */
  sameAs(other: KnownSecrets): boolean {
    return other === this || (other.values.length === this.values.length && other.values.every((value, index) => value === this.values[index]));
  }

  /** `text` with every known value masked. */
  maskIn(text: string): string {
    return maskedValues(text, this.values);
  }

  /**
   * `bytes` with every known value's UTF-8 bytes masked, in the order maskIn masks them: bytes
   * that need not be text, and for UTF-8 text the same as masking the text (a character's
   * bytes never start inside another's), so no file needs to be decoded first. The same
   * buffer when nothing is masked.
   */
  maskInBytes(bytes: Buffer): Buffer {
    if (!this.textScan().pattern.test(bytes.toString('latin1'))) return bytes;
    return Buffer.from(maskedValues(bytes.toString('latin1'), this.valuesAsBytes()), 'latin1');
  }

  private bytesValues: readonly string[] | undefined;

  /** The values' UTF-8 bytes as latin1 text (one character a byte), in the same order. */
  valuesAsBytes(): readonly string[] {
    this.bytesValues ??= this.values.map((value) => Buffer.from(value, 'utf8').toString('latin1'));
    return this.bytesValues;
  }
}

/** `text` with each of `values` replaced by the mask, one after the other: leftmost first and without overlaps, as KnownValueStage replaces it. */
function maskedValues(text: string, values: readonly string[]): string {
  let result = text;
  for (const value of values) if (result.includes(value)) result = result.split(value).join(MASKED_SECRET);
  return result;
}

/**
 * The secrets a saved state (`base_state.json`) holds in clear: the strings of its secret
 * fields and the registry's secret values. Not ciphertext (its clear value is unknown without
 * the server's key), nor the values of an `env` or `headers` map, nor a lookup's URL: those
 * are masked where they are, but they also hold ordinary text that masking everywhere would garble.
 */
export function knownSecretsOf(state: unknown): KnownSecrets {
  const found: string[] = [];
  walk(state, undefined, (text, scope, field) => {
    const secret = scope === Scope.Secret || (scope === Scope.Sources && field === CREDENTIAL_VALUE);
    if (secret && !keptWhole(text) && !isCiphertext(text)) found.push(text);
    return text;
  });
  return new KnownSecrets(found);
}

/**
 * A copy of `value` (plain JSON data) with every secret masked: the fields the policy names
 * and, in every other string, the known values. The original is left as it is.
 */
export function maskSecrets<T>(value: T, known: KnownSecrets = KnownSecrets.NONE, options: CopyOptions = {}): T {
  return maskedCopy(value, known, options).value;
}

export interface CopyOptions {
  /** Members left out of the copy wherever they are (the Markdown export leaves out opaque provider data). */
  omit?: ReadonlySet<string>;
  /** Mask a model provider's ciphertext too, as any Fernet token; the reference's trajectory export does. */
  maskProviderCiphertext?: boolean;
}

/** As maskSecrets, and whether anything was masked (a caller that holds the original's bytes sends those when nothing was). */
export function maskedCopy<T>(value: T, known: KnownSecrets = KnownSecrets.NONE, options: CopyOptions = {}): { value: T; changed: boolean } {
  let changed = false;
  const copy = walk(value, options.omit, (text, scope, field) => {
    const masked = maskedString(text, stringRule(scope, field, options), known);
    if (masked !== text) changed = true;
    return masked;
  });
  return { value: copy as T, changed };
}

/**
 * What becomes of a string, from where it sits: the one rule both the walk of parsed values
 * (maskedCopy) and the reading of JSON bytes in pieces (masked-json-stream.ts) apply.
 */
export enum StringRule {
  /** Left as it is: a model provider's ciphertext. */
  Kept,
  /** Masked whole, unless empty or already masked. */
  Whole,
  /** Masked whole when it is ciphertext (isCiphertext), else as Text. */
  WholeIfCiphertext,
  /** The known values and any Fernet token inside it masked (maskText). */
  Text,
}

/** The rule for a string in `scope` under the member named `field` (the nearest one, for an item of a list). */
export function stringRule(scope: Scope, field: string | undefined, options: CopyOptions = {}): StringRule {
  if (scope === Scope.Secret || scope === Scope.Holder) return StringRule.Whole;
  if (scope === Scope.Sources) return field === undefined || !SOURCE_NAMES.has(field) ? StringRule.Whole : StringRule.Text;
  if (field === PROVIDER_CIPHERTEXT && !options.maskProviderCiphertext) return StringRule.Kept;
  return StringRule.WholeIfCiphertext;
}

/** `text` under `rule`. */
function maskedString(text: string, rule: StringRule, known: KnownSecrets): string {
  switch (rule) {
    case StringRule.Kept:
      return text;
    case StringRule.Whole:
      return keptWhole(text) ? text : MASKED_SECRET;
    case StringRule.WholeIfCiphertext:
      return isCiphertext(text) ? MASKED_SECRET : maskText(text, known);
    default:
      return maskText(text, known);
  }
}

/** Strings a rule that masks whole leaves as they are: nothing to hide, or hidden already. */
export function keptWhole(text: string): boolean {
  return text === '' || text === MASKED_SECRET;
}

/** Whether a string is a Fernet token (one made with the server's key), judged on its first characters. */
export function isCiphertext(start: string): boolean {
  return start.startsWith(ENCRYPTED_VALUE_PREFIX);
}

/** Text that is no secret field's: the known values and any Fernet token inside it masked. */
function maskText(text: string, known: KnownSecrets): string {
  const masked = known.maskIn(text);
  return masked.includes(ENCRYPTED_VALUE_PREFIX) ? masked.replace(ENCRYPTED_RUN, MASKED_SECRET) : masked;
}

/** What a Fernet token is written in after its prefix: URL-safe base64. */
const TOKEN_CHARACTER = /[A-Za-z0-9_=-]/;
/** The fewest token characters after the prefix that make a run a token. */
const MIN_TOKEN_RUN = 10;
/** A Fernet token inside text: its prefix and the URL-safe base64 after it. */
export const ENCRYPTED_RUN = new RegExp(`${ENCRYPTED_VALUE_PREFIX}${TOKEN_CHARACTER.source}{${MIN_TOKEN_RUN},}`, 'g');

/**
 * maskText over a text that comes in parts, with bounded memory whatever its length: each
 * known value, longest first, replaced over what the ones before left, then each Fernet run,
 * as maskText does on the whole; a part's end that may begin a match is held until the next
 * part or the end tells. Parts are cut anywhere, between the halves of a surrogate pair too.
 */
export class TextMasking {
  /** Whether anything was masked so far. */
  changed = false;
  private readonly stages: TextStage[];

  /**
   * Without `ciphertext`, the known values only, as `KnownSecrets.maskIn` masks them; with
   * `bytes`, the text is bytes read as latin1 (one character a byte), in which the values
   * are looked for as their UTF-8 bytes, as `KnownSecrets.maskInBytes` masks them.
   */
  constructor(known: KnownSecrets, { ciphertext = true, bytes = false } = {}) {
    this.stages = (bytes ? known.valuesAsBytes() : known.values).map((value): TextStage => new KnownValueStage(value));
    if (ciphertext) this.stages.push(new CiphertextStage());
  }

  /** What of the text so far is settled, masked. */
  add(part: string): string {
    let text = part;
    for (const stage of this.stages) text = stage.add(text);
    this.changed ||= this.stages.some((stage) => stage.changed);
    return text;
  }

  /** The rest, once the text has ended. */
  end(): string {
    let text = '';
    for (const stage of this.stages) text = stage.add(text) + stage.end();
    this.changed ||= this.stages.some((stage) => stage.changed);
    return text;
  }
}

/** KnownSecrets.maskInBytes over bytes that come in pieces, a value cut between two pieces included. */
export class KnownBytesMasking {
  private readonly text: TextMasking;

  constructor(known: KnownSecrets) {
    this.text = new TextMasking(known, { ciphertext: false, bytes: true });
  }

  /** What of the bytes so far is settled, masked. */
  add(piece: Buffer): Buffer {
    return Buffer.from(this.text.add(piece.toString('latin1')), 'latin1');
  }

  /** The rest, once the bytes have ended. */
  end(): Buffer {
    return Buffer.from(this.text.end(), 'latin1');
  }
}

interface TextStage {
  changed: boolean;
  add(text: string): string;
  end(): string;
}

/** One known value replaced, leftmost first and without overlaps, as `split` and `join` replace it. */
class KnownValueStage implements TextStage {
  changed = false;
  private held = '';

  constructor(private readonly value: string) {}

  add(part: string): string {
    const text = this.held + part;
    let out = '';
    let at = 0;
    for (let found = text.indexOf(this.value); found !== -1; found = text.indexOf(this.value, at)) {
      out += text.slice(at, found) + MASKED_SECRET;
      at = found + this.value.length;
      this.changed = true;
    }
    // What could begin the value is held: fewer characters than it has.
    const settled = Math.max(at, text.length - (this.value.length - 1));
    this.held = text.slice(settled);
    return out + text.slice(at, settled);
  }

  end(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }
}

/** Every Fernet run replaced as ENCRYPTED_RUN replaces it: the prefix, then the longest run of token characters, at least MIN_TOKEN_RUN. */
class CiphertextStage implements TextStage {
  changed = false;
  private held = '';
  /** Inside a run already masked: its further token characters are dropped. */
  private inRun = false;

  add(part: string): string {
    const text = this.held + part;
    this.held = '';
    let at = 0;
    if (this.inRun) {
      at = tokenRunEnd(text, 0);
      if (at === text.length) return '';
      this.inRun = false;
    }
    let out = '';
    for (;;) {
      const found = text.indexOf(ENCRYPTED_VALUE_PREFIX, at);
      if (found === -1) {
        // A prefix may begin in the last characters.
        const settled = Math.max(at, text.length - (ENCRYPTED_VALUE_PREFIX.length - 1));
        this.held = text.slice(settled);
        return out + text.slice(at, settled);
      }
      const runEnd = tokenRunEnd(text, found + ENCRYPTED_VALUE_PREFIX.length);
      const run = runEnd - found - ENCRYPTED_VALUE_PREFIX.length;
      if (run >= MIN_TOKEN_RUN) {
        out += text.slice(at, found) + MASKED_SECRET;
        this.changed = true;
        if (runEnd === text.length) {
          this.inRun = true;
          return out;
        }
        at = runEnd;
      } else if (runEnd === text.length) {
        // Too short yet, but the run may go on in the next part.
        this.held = text.slice(found);
        return out + text.slice(at, found);
      } else {
        // No run starting inside this one is longer: it ends at the same character.
        out += text.slice(at, runEnd);
        at = runEnd;
      }
    }
  }

  end(): string {
    const rest = this.held;
    this.held = '';
    this.inRun = false;
    return rest;
  }
}

function tokenRunEnd(text: string, from: number): number {
  let at = from;
  while (at < text.length && TOKEN_CHARACTER.test(text[at]!)) at++;
  return at;
}

/** The scope of a member's value from its object's scope; `credential`: the object has a string `strategy`. */
export function scopeOf(parent: Scope, field: string, credential: boolean): Scope {
  if (parent !== Scope.Open) return parent;
  if (HOLDER_FIELDS.has(field)) return Scope.Holder;
  if (SECRET_FIELDS.has(field) || (credential && field === CREDENTIAL_VALUE)) return Scope.Secret;
  if (SOURCE_FIELDS.has(field)) return Scope.Sources;
  return Scope.Open;
}

interface Task {
  from: unknown;
  into: Record<string, unknown> | unknown[];
  key: string | number;
  scope: Scope;
  /** The member name the value sits under (the nearest one, for an item of a list). */
  field: string | undefined;
}

/** Copies `root`, passing every string through `visit`, with an explicit stack instead of recursion. */
function walk(
  root: unknown,
  omit: ReadonlySet<string> | undefined,
  visit: (text: string, scope: Scope, field: string | undefined) => string,
): unknown {
  const holder: unknown[] = [undefined];
  const stack: Task[] = [{ from: root, into: holder, key: 0, scope: Scope.Open, field: undefined }];
  while (stack.length > 0) {
    const { from, into, key, scope, field } = stack.pop()!;
    let copy: unknown;
    if (typeof from === 'string') copy = visit(from, scope, field);
    else if (Array.isArray(from)) {
      const list: unknown[] = new Array(from.length);
      for (let i = from.length - 1; i >= 0; i--) stack.push({ from: from[i], into: list, key: i, scope, field });
      copy = list;
    } else if (typeof from === 'object' && from !== null) {
      const record = from as Record<string, unknown>;
      const object: Record<string, unknown> = {};
      const credential = typeof record[CREDENTIAL_MARK] === 'string';
      const members = Object.keys(record);
      // Pushed last first, so that the copy's members are set, and written, in the original's order.
      for (let i = members.length - 1; i >= 0; i--) {
        const member = members[i]!;
        if (omit?.has(member)) continue;
        stack.push({ from: record[member], into: object, key: member, scope: scopeOf(scope, member, credential), field: member });
      }
      copy = object;
    } else copy = from;
    setMember(into, key, copy);
  }
  return holder[0];
}

function setMember(into: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  // A member named `__proto__` (JSON.parse makes it an own property) stays a member, not the copy's prototype.
  if (key === '__proto__') Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
  else (into as Record<string | number, unknown>)[key] = value;
}

/**
 * Whether stored JSON bytes may hold anything the policy masks: a secret field's name, the
 * registry, a credential, ciphertext, a known value, or an escape (`\u`) that could spell any
 * of them. When not, the bytes are served as stored, without being parsed.
 */
export function mayHoldSecrets(json: Buffer, known: KnownSecrets = KnownSecrets.NONE, options: CopyOptions = {}): boolean {
  // A latin1 view is a plain copy of the bytes, and one expression scans it once: many searches of the buffer cost more than a parse.
  return known.byteScan(options.maskProviderCiphertext === true).pattern.test(json.toString('latin1'));
}

/**
 * mayHoldSecrets over stored JSON bytes that come in pieces, one piece at a time (or, with
 * `text`, whether text that is not JSON may hold a known value): each is scanned with the end
 * of the one before, as far back as a match reaches, so what is cut between two pieces is
 * found as in the whole.
 */
export class PieceScan {
  /** Whether the pieces so far may hold something the policy masks. */
  found = false;
  private carried = '';
  private readonly scan: ByteScan;

  /** `known`'s scan (KnownSecrets.byteScan, or with `text` its textScan), or a scan of its own. */
  constructor(known: KnownSecrets | ByteScan = KnownSecrets.NONE, options: CopyOptions & { text?: boolean } = {}) {
    if (!(known instanceof KnownSecrets)) this.scan = known;
    else this.scan = options.text ? known.textScan() : known.byteScan(options.maskProviderCiphertext === true);
  }

  add(piece: Buffer): void {
    if (this.found) return;
    const { pattern, reach } = this.scan;
    const text = piece.toString('latin1');
    // The cut is scanned on its own, so the piece is not copied to put the end of the one before in front of it.
    this.found = pattern.test(this.carried + text.slice(0, reach)) || pattern.test(text);
    // A piece shorter than the reach keeps the end of the ones before it too.
    this.carried = reach === 0 ? '' : text.length >= reach ? text.slice(-reach) : (this.carried + text).slice(-reach);
  }
}

/** What in stored JSON bytes, read as latin1, may make an object an MCP credential: its mark, or an escape that could spell it. */
export const CREDENTIAL_MARK_SCAN: ByteScan = { pattern: new RegExp(`"${CREDENTIAL_MARK}"|\\\\u`), reach: CREDENTIAL_MARK.length + 2 };

/** An expression that matches nothing. */
const NEVER = /(?!)/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function jsonEscaped(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}
