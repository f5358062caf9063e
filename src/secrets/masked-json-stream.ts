/**
 * The secret policy applied to JSON bytes that come in pieces, giving masked JSON bytes in
 * pieces, with bounded memory whatever the document's size: for an event too large to be
 * read whole. Every string is judged by the policy's own rules (secret-policy.ts: the scope
 * from the member names above it, then its StringRule), from the characters it decodes to, so
 * an escape spells a name or a value as the parsed text does. What is not masked keeps its
 * bytes outside strings; a string the rules read as text is written again with JSON's escapes,
 * so the result is the same JSON value as masking the parsed document (maskedCopy), not
 * always the same bytes.
 *
 * One case needs what comes later: an object with a string `strategy` is an MCP credential
 * whose `value` is a secret, and `strategy` may come after `value`. What follows such a
 * `value` is then held, masked as open text and with its strings marked, until the object
 * shows a `strategy` (its strings are then masked whole) or closes without one; past
 * CREDENTIAL_HOLD_BYTES held, the reading fails, and the caller reads the document whole.
 */
import { JsonTokenReader, type JsonTokenSink } from '../json/json-tokens';
import {
  CREDENTIAL_MARK,
  CREDENTIAL_VALUE,
  type CopyOptions,
  ENCRYPTED_VALUE_PREFIX,
  type KnownSecrets,
  MASKED_SECRET,
  Scope,
  StringRule,
  TextMasking,
  isCiphertext,
  keptWhole,
  scopeOf,
  stringRule,
} from './secret-policy';

/** The most bytes held, across an event, while `value` members wait to learn whether their object is a credential. */
export const CREDENTIAL_HOLD_BYTES = 256 * 1024;
/** A member name is read up to this many bytes: no name the policy knows is longer, even written in escapes. */
const NAME_BYTES = 256;

export interface StreamedMaskingOptions extends CopyOptions {
  /** Line breaks between tokens left out, for a JSON lines export (inside strings JSON escapes them). */
  oneLine?: boolean;
}

const QUOTE_BYTE = Buffer.from('"');
const MASKED_STRING = Buffer.from(`"${MASKED_SECRET}"`);
const EMPTY_STRING = Buffer.from('""');
const PUNCTUATION = new Map([...'{}[]:,'].map((character) => [character.charCodeAt(0), Buffer.from(character)]));
const LINE_BREAK = /[\r\n]/g;
const BACKSLASH = 0x5c;
const HIGH_SURROGATE_FIRST = 0xd800;
const HIGH_SURROGATE_LAST = 0xdbff;

interface Frame {
  object: boolean;
  scope: Scope;
  /** The member name the container's items sit under (the nearest one, for an item of a list). */
  field: string | undefined;
  /** The object has a string `strategy`, as far as read. */
  credential: boolean;
  /** The name of the member being read. */
  member: string | undefined;
  /** What is held since the object's `value`, while whether it is a credential is not known. */
  hold: Hold | undefined;
}

interface Hold {
  segments: Segment[];
  /** Whether what is read now is inside a `value` member. */
  inValue: boolean;
}

interface Segment {
  bytes: Buffer[];
  /** A string value, written as open text: masked whole if its `value` turns out a credential's. */
  string: boolean;
  inValue: boolean;
}

/** The string being read: how it is judged, and what of it is held until that is decided. */
interface OpenString {
  rule: StringRule;
  /** Its first characters while the rule waits on them (Whole, WholeIfCiphertext). */
  head: string;
  /** Its raw bytes while it may be kept as it is (Whole). */
  raw: Buffer[];
  masked: boolean;
  text: TextMasking | undefined;
  /** The first half of a surrogate pair, written with its second half. */
  highSurrogate: string;
}

/**
 * Reads one JSON document piece by piece and gives its masked bytes piece by piece. `failure`
 * says why it could not (the text is not JSON, or a credential's `value` held too much), after
 * which it gives nothing more; `changed` whether anything was masked (false: the output is the
 * input, line breaks aside).
 */
export class JsonMaskingStream implements JsonTokenSink {
  changed = false;
  /** Whether line breaks were read between tokens. */
  lineBreaks = false;
  private failed: string | undefined;
  private readonly reader = new JsonTokenReader(this);
  private readonly frames: Frame[] = [];
  private readonly holds: Hold[] = [];
  private heldBytes = 0;
  private out: Buffer[] = [];
  private name: Buffer[] | undefined;
  private nameBytes = 0;
  private string: OpenString | undefined;
  /** The held segment a string value being read is written to. */
  private heldString: Segment | undefined;

  /** `write` false reads without writing anything: to learn `changed`, `lineBreaks` and `failure` first. */
  constructor(
    private readonly known: KnownSecrets,
    private readonly options: StreamedMaskingOptions = {},
    private readonly write = true,
  ) {}

  get failure(): string | undefined {
    return this.failed;
  }

  /** The masked bytes `piece` settles (possibly none). */
  add(piece: Buffer): Buffer {
    if (!this.failed) {
      const error = this.reader.add(piece);
      this.failed ??= error;
    }
    return this.taken();
  }

  /** The rest, once the document has ended. */
  end(): Buffer {
    if (!this.failed) {
      const error = this.reader.end();
      this.failed ??= error;
    }
    return this.taken();
  }

  private taken(): Buffer {
    if (this.failed) this.out = [];
    const bytes = this.out.length === 1 ? this.out[0]! : Buffer.concat(this.out);
    this.out = [];
    return bytes;
  }

  punctuation(byte: number): void {
    const frame = this.frames.at(-1);
    if (byte === 0x7b || byte === 0x5b) {
      const { scope, field } = this.place();
      this.emit(PUNCTUATION.get(byte)!);
      this.frames.push({ object: byte === 0x7b, scope, field, credential: false, member: undefined, hold: undefined });
      return;
    }
    if (byte === 0x7d || byte === 0x5d) {
      if (frame?.hold) this.resolve(frame, false);
      this.emit(PUNCTUATION.get(byte)!);
      this.frames.pop();
      return;
    }
    this.emit(PUNCTUATION.get(byte)!);
    if (!frame?.object) return;
    if (byte === 0x2c) {
      if (frame.hold) frame.hold.inValue = false;
      return;
    }
    // A colon: a `value` whose object may yet show a `strategy` is held from here.
    if (frame.member === CREDENTIAL_VALUE && frame.scope === Scope.Open && !frame.credential) {
      if (!frame.hold) {
        frame.hold = { segments: [], inValue: false };
        this.holds.push(frame.hold);
      }
      frame.hold.inValue = true;
    }
  }

  other(bytes: Buffer): void {
    if (!this.options.oneLine || (!bytes.includes(0x0a) && !bytes.includes(0x0d))) {
      this.emit(bytes);
      return;
    }
    this.lineBreaks = true;
    this.emit(Buffer.from(bytes.toString('latin1').replace(LINE_BREAK, ''), 'latin1'));
  }

  openString(key: boolean): void {
    if (key) {
      this.name = [];
      this.nameBytes = 0;
      this.emit(QUOTE_BYTE);
      return;
    }
    const frame = this.frames.at(-1);
    if (frame?.object && frame.member === CREDENTIAL_MARK && !frame.credential) {
      frame.credential = true;
      if (frame.hold) this.resolve(frame, true);
    }
    const { scope, field } = this.place();
    const hold = this.holds.at(-1);
    if (hold) {
      this.heldString = { bytes: [], string: true, inValue: hold.inValue };
      hold.segments.push(this.heldString);
    }
    const rule = stringRule(scope, field, this.options);
    const text = rule === StringRule.Text ? new TextMasking(this.known) : undefined;
    this.string = { rule, head: '', raw: [], masked: false, text, highSurrogate: '' };
    this.emit(QUOTE_BYTE);
  }

  stringPart(raw: Buffer): void {
    if (this.name) {
      if (this.nameBytes < NAME_BYTES) this.name.push(Buffer.from(raw));
      this.nameBytes += raw.length;
      this.emit(raw);
      return;
    }
    const string = this.string!;
    if (string.rule === StringRule.Kept) {
      this.emit(raw);
      return;
    }
    if (string.masked) return;
    if (string.text) {
      const decoded = this.decoded(raw);
      if (decoded !== undefined) this.emitText(string, string.text.add(decoded));
      this.changed ||= string.text.changed;
      return;
    }
    // Whole and WholeIfCiphertext wait on the string's first characters.
    const decoded = this.decoded(raw);
    if (decoded === undefined) return;
    string.head += decoded;
    if (string.rule === StringRule.Whole) {
      if (string.head.length > MASKED_SECRET.length) this.masked(string);
      else string.raw.push(Buffer.from(raw));
      return;
    }
    if (string.head.length >= ENCRYPTED_VALUE_PREFIX.length) this.judgeStart(string);
  }

  closeString(): void {
    if (this.name) {
      const name = this.nameBytes <= NAME_BYTES ? this.decodedName(Buffer.concat(this.name)) : undefined;
      this.name = undefined;
      this.frames.at(-1)!.member = name ?? LONG_NAME;
      this.emit(QUOTE_BYTE);
      return;
    }
    const string = this.string!;
    this.string = undefined;
    if (string.rule === StringRule.WholeIfCiphertext && !string.masked && !string.text) this.judgeStart(string);
    if (string.rule === StringRule.Whole && !string.masked && !keptWhole(string.head)) this.masked(string);
    if (string.masked) {
      this.emit(MASKED_STRING.subarray(1));
    } else if (string.text) {
      this.emitText(string, string.text.end());
      if (string.highSurrogate) this.emit(encoded(string.highSurrogate));
      this.changed ||= string.text.changed;
      this.emit(QUOTE_BYTE);
    } else {
      for (const raw of string.raw) this.emit(raw);
      this.emit(QUOTE_BYTE);
    }
    this.heldString = undefined;
  }

  /** The string is masked whole: known as soon as decided, for a reader that watches `changed`. */
  private masked(string: OpenString): void {
    string.masked = true;
    string.head = '';
    string.raw = [];
    this.changed = true;
  }

  /** A string read as WholeIfCiphertext whose first characters are known: masked whole, or read as text from here. */
  private judgeStart(string: OpenString): void {
    if (isCiphertext(string.head)) {
      this.masked(string);
      return;
    }
    string.text = new TextMasking(this.known);
    this.emitText(string, string.text.add(string.head));
    string.head = '';
  }

  private emitText(string: OpenString, text: string): void {
    let settled = string.highSurrogate + text;
    string.highSurrogate = '';
    const last = settled.charCodeAt(settled.length - 1);
    if (last >= HIGH_SURROGATE_FIRST && last <= HIGH_SURROGATE_LAST) {
      string.highSurrogate = settled.slice(-1);
      settled = settled.slice(0, -1);
    }
    if (settled !== '') this.emit(encoded(settled));
  }

  /** Where a value read now sits: its scope and the member name above it. */
  private place(): { scope: Scope; field: string | undefined } {
    const frame = this.frames.at(-1);
    if (!frame) return { scope: Scope.Open, field: undefined };
    if (!frame.object) return { scope: frame.scope, field: frame.field };
    return { scope: scopeOf(frame.scope, frame.member!, frame.credential), field: frame.member };
  }

  /**
   * Ends the hold of `frame`, the innermost: its `value` strings masked whole when the object
   * is a credential, its segments passed to the hold around it (or written).
   */
  private resolve(frame: Frame, credential: boolean): void {
    const hold = this.holds.pop()!;
    frame.hold = undefined;
    const outer = this.holds.at(-1);
    for (const segment of hold.segments) {
      let bytes = segment.bytes;
      if (credential && segment.string && segment.inValue) {
        const string = Buffer.concat(bytes);
        const kept = string.equals(EMPTY_STRING) || string.equals(MASKED_STRING);
        if (!kept) this.changed = true;
        bytes = [kept ? string : MASKED_STRING];
      }
      this.heldBytes -= segment.bytes.reduce((total, piece) => total + piece.length, 0);
      if (outer) outer.segments.push({ bytes, string: segment.string, inValue: outer.inValue });
      else if (this.write) this.out.push(...bytes);
      this.heldBytes += outer ? bytes.reduce((total, piece) => total + piece.length, 0) : 0;
    }
  }

  private emit(bytes: Buffer): void {
    const hold = this.holds.at(-1);
    if (!hold) {
      if (this.write && bytes.length > 0) this.out.push(bytes);
      return;
    }
    this.heldBytes += bytes.length;
    if (this.heldBytes > CREDENTIAL_HOLD_BYTES) {
      this.failed ??= `an object's "${CREDENTIAL_VALUE}" is held past ${CREDENTIAL_HOLD_BYTES} bytes waiting for a "${CREDENTIAL_MARK}" after it`;
      return;
    }
    // Pieces are not held as views: a view would keep its whole piece alive, or see it reused.
    const copy = Buffer.from(bytes);
    if (this.heldString) this.heldString.bytes.push(copy);
    else hold.segments.push({ bytes: [copy], string: false, inValue: hold.inValue });
  }

  /** A part of a string as text; undefined, failing the reading, when its escapes are not JSON's. */
  private decoded(raw: Buffer): string | undefined {
    const text = raw.toString('utf8');
    if (!raw.includes(BACKSLASH)) return text;
    try {
      return JSON.parse(`"${text}"`) as string;
    } catch {
      this.failed ??= 'not JSON: a string holds an escape JSON does not have';
      return undefined;
    }
  }

  private decodedName(raw: Buffer): string | undefined {
    try {
      return JSON.parse(`"${raw.toString('utf8')}"`) as string;
    } catch {
      this.failed ??= 'not JSON: a member name holds an escape JSON does not have';
      return undefined;
    }
  }
}

/** The name a member longer than NAME_BYTES is judged by: one the policy does not know, as every such name is. */
const LONG_NAME = '';

function encoded(text: string): Buffer {
  return Buffer.from(JSON.stringify(text).slice(1, -1), 'utf8');
}

/** How JSON bytes in pieces can be masked, learnt by reading them once without writing. */
export type MaskingPlan =
  /** Nothing to mask (and, with `oneLine`, no line breaks): the bytes may be sent as they are. */
  | { kind: 'unchanged' }
  /** maskedJsonPieces masks them. */
  | { kind: 'streamed' }
  /** Only a reading of the whole can (`reason`: why not in pieces). */
  | { kind: 'whole'; reason: string };

export async function maskingPlan(pieces: AsyncIterable<Buffer>, known: KnownSecrets, options: StreamedMaskingOptions = {}): Promise<MaskingPlan> {
  const masking = new JsonMaskingStream(known, options, false);
  for await (const piece of pieces) {
    masking.add(piece);
    if (masking.failure) break;
  }
  masking.end();
  if (masking.failure) return { kind: 'whole', reason: masking.failure };
  return masking.changed || masking.lineBreaks ? { kind: 'streamed' } : { kind: 'unchanged' };
}

/**
 * `pieces` with the policy applied, piece by piece. Throws when they cannot be masked in
 * pieces (see maskingPlan), which a caller that planned first sees only when the bytes changed
 * between the two readings.
 */
export async function* maskedJsonPieces(
  pieces: AsyncIterable<Buffer>,
  known: KnownSecrets,
  options: StreamedMaskingOptions = {},
): AsyncGenerator<Buffer> {
  const masking = new JsonMaskingStream(known, options);
  for await (const piece of pieces) {
    const masked = masking.add(piece);
    if (masking.failure) throw new Error(`The JSON could not be masked in pieces: ${masking.failure}`);
    if (masked.length > 0) yield masked;
  }
  const rest = masking.end();
  if (masking.failure) throw new Error(`The JSON could not be masked in pieces: ${masking.failure}`);
  if (rest.length > 0) yield rest;
}
