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
 * The bytes are read twice. One case needs what comes later: an object with a string
 * `strategy` is an MCP credential whose `value` is a secret, and `strategy` may come after
 * `value`. The first reading (maskingPlan) writes nothing: it learns whether anything is
 * masked at all, and which objects are such credentials, by their place among the document's
 * objects. It notes at most LATE_CREDENTIALS of them, so that what is kept between the
 * readings is bounded; past it, it notes only the first place of those it could not, and the
 * second reading masks the `value` of every object from that place on as a credential's,
 * whether or not a `strategy` follows: more is masked than the walk of the parsed document
 * masks, never less. The second (maskedJsonPieces) then masks such a `value` as it comes.
 */
import { JsonTokenReader, type JsonTokenSink, heldHighSurrogate, stringPartText } from '../json/json-tokens';
import {
  CREDENTIAL_MARK,
  CREDENTIAL_VALUE,
  type CopyOptions,
  ENCRYPTED_VALUE_PREFIX,
  type KnownSecrets,
  MASKED_SECRET,
  CREDENTIAL_MARK_SCAN,
  PieceScan,
  Scope,
  StringRule,
  TextMasking,
  isCiphertext,
  keptWhole,
  scopeOf,
  stringRule,
} from './secret-policy';

/** The most credentials whose `strategy` comes after their `value` a first reading notes one by one: each costs a number kept between the readings. */
export const LATE_CREDENTIALS = 4096;
/** A member name is read up to this many bytes: no name the policy knows is longer, even written in escapes. */
const NAME_BYTES = 256;

export interface StreamedMaskingOptions extends CopyOptions {
  /** Line breaks between tokens left out, for a JSON lines export (inside strings JSON escapes them). */
  oneLine?: boolean;
  /** The bytes are known to be one JSON document (a stored event, which the ingester decoded). */
  json?: boolean;
}

const QUOTE_BYTE = Buffer.from('"');
const MASKED_STRING = Buffer.from(`"${MASKED_SECRET}"`);
const MASK_BYTES = Buffer.from(MASKED_SECRET);
const PUNCTUATION = new Map([...'{}[]:,'].map((character) => [character.charCodeAt(0), Buffer.from(character)]));
const LINE_BREAK = /[\r\n]/g;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

interface Frame {
  object: boolean;
  scope: Scope;
  /** The member name the container's items sit under (the nearest one, for an item of a list). */
  field: string | undefined;
  /** The object has a string `strategy`: as far as read, or as the first reading found. */
  credential: boolean;
  /** The name of the member being read. */
  member: string | undefined;
  /** The object's place among the document's objects, counted from 0 in the order they open. */
  ordinal: number;
  /** A string `strategy` was read. */
  marked: boolean;
  /** A `value` member was read before any string `strategy`, or is being read (`inValue`). */
  valueRead: boolean;
  inValue: boolean;
  /** Something inside a `value` member that masking it whole would change. */
  valueChanges: boolean;
  /** Something inside this container that masking it whole would change. */
  changes: boolean;
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
  /** Its first raw bytes and how many it has: whether masking it whole would change it. */
  start: Buffer;
  length: number;
}

/**
 * What a first reading found of the credentials whose `strategy` comes after their `value`:
 * the ordinals of those it noted, and where it stopped noting them (`valuesMaskedFrom`: from
 * this object on, every object's `value` is masked as a credential's).
 */
export interface LateCredentials {
  lateCredentials: readonly number[];
  valuesMaskedFrom?: number | undefined;
}

/**
 * Reads one JSON document piece by piece. Made with what a first reading found of the late
 * credentials (`plan`), it gives the masked bytes piece by piece; without, it writes nothing
 * and finds them, noting at most `room` one by one. `failure` says why it could not read the
 * document (the text is not JSON, or, on the second reading, bytes that are not those of the
 * first), after which it gives nothing more; `changed` whether anything was masked (false:
 * the output is the input, line breaks aside).
 */
export class JsonMaskingStream implements JsonTokenSink {
  changed = false;
  /** Whether line breaks were read between tokens. */
  lineBreaks = false;
  /** The ordinals of the credential objects whose `strategy` comes after their `value`, found by a first reading. */
  readonly lateCredentials: number[] = [];
  /** The first ordinal of a late credential the first reading had no room to note. */
  valuesMaskedFrom: number | undefined;
  private failed: string | undefined;
  private readonly reader = new JsonTokenReader(this);
  private readonly frames: Frame[] = [];
  private objects = 0;
  private out: Buffer[] = [];
  private name: Buffer[] | undefined;
  private nameBytes = 0;
  private string: OpenString | undefined;
  private readonly planned: ReadonlySet<number> | undefined;
  private readonly plannedMaskedFrom: number;

  constructor(
    private readonly known: KnownSecrets,
    private readonly options: StreamedMaskingOptions = {},
    plan?: LateCredentials,
    private readonly room = LATE_CREDENTIALS,
  ) {
    this.planned = plan && new Set(plan.lateCredentials);
    this.plannedMaskedFrom = plan?.valuesMaskedFrom ?? Number.POSITIVE_INFINITY;
  }

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
    this.emit(PUNCTUATION.get(byte)!);
    if (byte === 0x7b || byte === 0x5b) {
      const { scope, field } = this.place();
      const ordinal = byte === 0x7b ? this.objects++ : -1;
      const credential = this.planned !== undefined && ordinal !== -1 && (this.planned.has(ordinal) || ordinal >= this.plannedMaskedFrom);
      this.frames.push({
        object: byte === 0x7b,
        scope,
        field,
        credential,
        member: undefined,
        ordinal,
        marked: false,
        valueRead: false,
        inValue: false,
        valueChanges: false,
        changes: false,
      });
      return;
    }
    if (byte === 0x7d || byte === 0x5d) {
      this.frames.pop();
      if (frame && this.planned?.has(frame.ordinal) && !frame.marked) this.failed ??= CHANGED_SINCE_PLANNED;
      const parent = this.frames.at(-1);
      if (frame?.changes && parent) this.changes(parent);
      return;
    }
    if (!frame?.object) return;
    if (byte === 0x2c) {
      frame.inValue = false;
      return;
    }
    // A colon: a `value` whose object may yet show a `strategy` is watched from here.
    if (frame.member === CREDENTIAL_VALUE && frame.scope === Scope.Open && !frame.credential) {
      frame.valueRead = true;
      frame.inValue = true;
    }
  }

  /** Something in `frame` that masking it whole would change; a late `strategy` then masks it. */
  private changes(frame: Frame): void {
    frame.changes = true;
    if (frame.inValue) frame.valueChanges = true;
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
    if (frame?.object && frame.member === CREDENTIAL_MARK) this.credentialMark(frame);
    const { scope, field } = this.place();
    const rule = stringRule(scope, field, this.options);
    const text = rule === StringRule.Text ? new TextMasking(this.known) : undefined;
    this.string = { rule, head: '', raw: [], masked: false, text, highSurrogate: '', start: Buffer.alloc(0), length: 0 };
    this.emit(QUOTE_BYTE);
  }

  /** A string `strategy` in `frame`: a credential, which the first reading notes when its `value` came before. */
  private credentialMark(frame: Frame): void {
    frame.marked = true;
    if (frame.credential || frame.scope !== Scope.Open) return;
    frame.credential = true;
    if (!frame.valueRead) return;
    if (this.planned) {
      this.failed ??= CHANGED_SINCE_PLANNED;
      return;
    }
    if (this.lateCredentials.length < this.room) {
      this.lateCredentials.push(frame.ordinal);
      if (frame.valueChanges) this.changed = true;
      return;
    }
    // What the second reading masks from here on is more than this value: it may change what the planning saw unchanged.
    this.valuesMaskedFrom = Math.min(this.valuesMaskedFrom ?? frame.ordinal, frame.ordinal);
    this.changed = true;
  }

  stringPart(raw: Buffer): void {
    if (this.name) {
      if (this.nameBytes < NAME_BYTES) this.name.push(Buffer.from(raw));
      this.nameBytes += raw.length;
      this.emit(raw);
      return;
    }
    const string = this.string!;
    if (string.start.length <= MASKED_SECRET.length) string.start = Buffer.concat([string.start, raw.subarray(0, MASKED_SECRET.length + 1)]);
    string.length += raw.length;
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
      const name = this.nameBytes <= NAME_BYTES ? this.decoded(Buffer.concat(this.name), 'a member name') : undefined;
      this.name = undefined;
      this.frames.at(-1)!.member = name ?? LONG_NAME;
      this.emit(QUOTE_BYTE);
      return;
    }
    const string = this.string!;
    this.string = undefined;
    const frame = this.frames.at(-1);
    if (frame && string.length > 0 && !string.start.equals(MASK_BYTES)) this.changes(frame);
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
    const { settled, held } = heldHighSurrogate(string.highSurrogate + text);
    string.highSurrogate = held;
    if (settled !== '') this.emit(encoded(settled));
  }

  /** Where a value read now sits: its scope and the member name above it. */
  private place(): { scope: Scope; field: string | undefined } {
    const frame = this.frames.at(-1);
    if (!frame) return { scope: Scope.Open, field: undefined };
    if (!frame.object) return { scope: frame.scope, field: frame.field };
    return { scope: scopeOf(frame.scope, frame.member!, frame.credential), field: frame.member };
  }

  private emit(bytes: Buffer): void {
    if (this.planned && bytes.length > 0) this.out.push(bytes);
  }

  /** A part of a string (`holder`: a string or a member name) as text; undefined, failing the reading, when its escapes are not JSON's. */
  private decoded(raw: Buffer, holder = 'a string'): string | undefined {
    try {
      return stringPartText(raw);
    } catch {
      this.failed ??= `not JSON: ${holder} holds an escape JSON does not have`;
      return undefined;
    }
  }
}

/** The name a member longer than NAME_BYTES is judged by: one the policy does not know, as every such name is. */
const LONG_NAME = '';
const CHANGED_SINCE_PLANNED = 'the bytes are not those the first reading planned from';

function encoded(text: string): Buffer {
  return Buffer.from(JSON.stringify(text).slice(1, -1), 'utf8');
}

/** How JSON bytes in pieces can be masked, learnt by reading them once without writing. */
export type MaskingPlan =
  /**
   * Nothing to mask (and, with `oneLine`, no line breaks): the bytes may be sent as they are.
   * `seenClean`: the policy's one expression found nothing in them (mayHoldSecrets), so a
   * reading again is checked the same way; otherwise only the masker found nothing to change.
   */
  | { kind: 'unchanged'; seenClean: boolean }
  /** maskedJsonPieces masks them, given the credentials found. */
  | ({ kind: 'streamed' } & LateCredentials)
  /** They are not one JSON document (`reason`: where the reading found so). */
  | { kind: 'notJson'; reason: string };

/**
 * The first reading of the bytes `read` gives, each time it is called. Bytes in which the
 * policy's expression finds nothing (mayHoldSecrets, and with `oneLine` no line break) are
 * unchanged without being tokenized, which costs a fraction of it; only the others are read
 * again by the masker, to plan.
 */
export async function maskingPlan(
  read: () => AsyncIterable<Buffer>,
  known: KnownSecrets,
  options: StreamedMaskingOptions = {},
): Promise<MaskingPlan> {
  const look = await firstLook(read(), known, options);
  if (!look.mayNeedMasking) return { kind: 'unchanged', seenClean: true };
  // Without a credential's mark, a reading to plan would find no credential, nor anything that is not JSON in a document known to be.
  if (options.json && !look.mayMarkCredentials) return { kind: 'streamed', lateCredentials: [] };
  const masking = new JsonMaskingStream(known, options);
  for await (const piece of read()) {
    for (const slice of slices(piece)) masking.add(slice);
    if (masking.failure) break;
  }
  masking.end();
  if (masking.failure) return { kind: 'notJson', reason: masking.failure };
  return masking.changed || masking.lineBreaks
    ? { kind: 'streamed', lateCredentials: masking.lateCredentials, valuesMaskedFrom: masking.valuesMaskedFrom }
    : { kind: 'unchanged', seenClean: false };
}

/** What the policy's one expression finds in the bytes (and, with `oneLine`, whether they hold a line break), and whether a credential's mark may be among them. */
async function firstLook(
  pieces: AsyncIterable<Buffer>,
  known: KnownSecrets,
  options: StreamedMaskingOptions,
): Promise<{ mayNeedMasking: boolean; mayMarkCredentials: boolean }> {
  const scan = new PieceScan(known, options);
  // Only a document known to be JSON may skip the planning reading: for any other the look stops at its first finding.
  const marks = options.json ? new PieceScan(CREDENTIAL_MARK_SCAN) : undefined;
  let lineBreaks = false;
  for await (const piece of pieces) {
    if (!scan.found) scan.add(piece);
    marks?.add(piece);
    lineBreaks ||= options.oneLine === true && (piece.includes(LINE_FEED) || piece.includes(CARRIAGE_RETURN));
    if ((scan.found || lineBreaks) && (marks?.found ?? true)) break;
  }
  return { mayNeedMasking: scan.found || lineBreaks, mayMarkCredentials: marks?.found ?? true };
}

/**
 * `pieces` with the policy applied, piece by piece, as `plan` (maskingPlan of the same
 * bytes) found them. Throws when they are not JSON, or not the bytes planned from (read again
 * after they changed), which cuts what was being sent.
 */
export async function* maskedJsonPieces(
  pieces: AsyncIterable<Buffer>,
  known: KnownSecrets,
  plan: LateCredentials,
  options: StreamedMaskingOptions = {},
): AsyncGenerator<Buffer> {
  const masking = new JsonMaskingStream(known, options, plan);
  for await (const piece of pieces)
    for (const slice of slices(piece)) {
      const masked = masking.add(slice);
      if (masking.failure) throw new Error(`The JSON could not be masked in pieces: ${masking.failure}`);
      if (masked.length > 0) yield masked;
    }
  const rest = masking.end();
  if (masking.failure) throw new Error(`The JSON could not be masked in pieces: ${masking.failure}`);
  if (rest.length > 0) yield rest;
}

/**
 * A piece in slices of SLICE_BYTES (views, not copies): what masking makes of a slice (its
 * text decoded, masked and written again) is then short-lived and small, collected young,
 * where a whole piece's would be several copies of it at once in every download.
 */
export function* slices(piece: Buffer): Generator<Buffer> {
  for (let start = 0; start < piece.length; start += SLICE_BYTES) yield piece.subarray(start, start + SLICE_BYTES);
}

const SLICE_BYTES = 64 * 1024;
