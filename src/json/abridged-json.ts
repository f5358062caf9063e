/**
 * JSON text made smaller without being parsed, from its bytes in pieces, so that a reader
 * that carries only part of a document (the trace exports) parses the result and never
 * holds the document, whatever its size and whatever its shape. Two things make a document
 * large, and both are bounded as they are read:
 *
 * - a long string: replaced by what `abridge` makes of its head and its length;
 * - many items and members: once the text written passes `structureBytes`, further items of
 *   any array and members of any object are left out, a notice standing for them, except the
 *   members `kept` names (once per object, where they sit), which the reader needs whatever
 *   came before them, and `marks` (once per object, anywhere): a name whose presence changes
 *   how the rest of its object is read (an MCP credential's `strategy`, which makes its
 *   `value` a secret for the masking after), written with a string value as a string of
 *   which nothing is kept.
 *
 * White space between tokens is left out; everything else written is copied as it is.
 */
import { JsonTokenReader, type JsonTokenSink, heldHighSurrogate, stringPartText } from './json-tokens';

/** Member names by where they sit: those of a document's top level, each with the names inside its value. An array's items sit where the array sits. */
export interface KeptMembers {
  readonly [name: string]: KeptMembers;
}

export interface Abridging {
  /** A string of more characters than this is abridged. */
  longerThan: number;
  /** How many of a long string's first characters `abridge` is given (at least `longerThan`). */
  headCharacters: number;
  /** What replaces a long string, from its head and its whole length, in UTF-16 code units as JavaScript counts a string's. */
  abridge(head: string, length: number): string;
  /** Past this many bytes of abridged text, items and members are left out but for the `kept` ones. */
  structureBytes: number;
  /** The members written past `structureBytes`. */
  kept: KeptMembers;
  /** Members written past `structureBytes` in any object, a string value as `abridge` makes a string of which nothing is kept. */
  marks?: ReadonlySet<string>;
  /** The item that stands for `count` items left out of an array, as JSON text. */
  omittedItems(count: number): string;
  /** The member (name, colon and value, as JSON text) that stands for `count` members left out of an object. */
  omittedMembers(count: number): string;
  /**
   * Members whose string value is itself a JSON document (a completion log's `log_data`),
   * with the members kept inside it: that document is abridged as it is read, as the outer
   * one, so its short members stay whole where cutting the string would lose them. A value
   * that is no JSON is cut as any string.
   */
  jsonInside?: ReadonlyMap<string, KeptMembers>;
}

const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const LETTER_U = 0x75;
const UNICODE_ESCAPE_BYTES = 6;
const SHORT_ESCAPE_BYTES = 2;
/** A number longer than this is written as `null`: no reader of a trace reads such a number, and holding it would not be bounded. */
const MAX_NUMBER_BYTES = 1024;
/** The longest member name looked up in `kept` and `jsonInside`: a longer one is none of them. */
const MEMBER_NAME_CHARACTERS = 64;

/**
 * `pieces` (a JSON document's bytes, in order) abridged; `undefined` when the bytes are not
 * JSON. What it returns is bounded by `structureBytes`, the kept members and the depth of
 * the document, whatever its size.
 */
export async function abridgedJson(pieces: AsyncIterable<Buffer>, abridging: Abridging): Promise<Buffer | undefined> {
  const reader = new AbridgingReader(abridging);
  const tokens = new JsonTokenReader(reader);
  for await (const piece of pieces) if (tokens.add(piece)) return undefined;
  return tokens.end() ? undefined : reader.text();
}

/** Whether a value about to be read is written, and the members kept inside it. */
interface Place {
  written: boolean;
  kept: KeptMembers | undefined;
  /** A mark's value past the bound: a string is written with nothing of it kept. */
  mark?: boolean;
}

const LEFT_OUT: Place = { written: false, kept: undefined };

interface Frame extends Place {
  object: boolean;
  /** Items or members written. */
  count: number;
  /** Items or members left out. */
  omitted: number;
  /** The kept members written past the bound, each written once. */
  keptPast: Set<string> | undefined;
}

/**
 * Takes a document's tokens (json-tokens.ts) and writes the abridged text: inside a string it
 * counts characters the way JavaScript counts them (a UTF-8 sequence of four bytes is two, an
 * escape is one) and keeps the bytes of the head, so that a string's fate is known at its
 * closing quote without holding more than its head; around strings it writes the structure
 * again itself, item by item, so that what is left out leaves valid JSON.
 */
class AbridgingReader implements JsonTokenSink {
  private readonly written: Buffer[] = [];
  private writtenBytes = 0;
  /** Punctuation and numbers written since the last string, one character a byte: kept as one run. */
  private pending = '';
  private readonly frames: Frame[] = [];
  /** Where the value after the member name just read goes. */
  private member: Place = LEFT_OUT;
  /** The value being read is a number: whether it is written, and its first bytes. */
  private number: { written: boolean; bytes: string } | undefined;
  /** The string being read: a member name (`key`), whether it is written (with nothing kept, for a mark), its length and head. */
  private string: { key: boolean; written: boolean; mark: boolean } | undefined;
  private length = 0;
  private head: Buffer[] = [];
  private headComplete = false;
  /** The members kept inside a `jsonInside` document, when the member name just read is one. */
  private insideKept: KeptMembers | undefined;
  /** The document inside the string being read, under a `jsonInside` member. */
  private inside: JsonInsideString | undefined;

  constructor(private readonly abridging: Abridging) {}

  text(): Buffer {
    this.endNumber();
    this.flush();
    return Buffer.concat(this.written, this.writtenBytes);
  }

  punctuation(byte: number): void {
    this.endNumber();
    if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      const place = this.valueStarts();
      this.frames.push({ ...place, object: byte === OPEN_OBJECT, count: 0, omitted: 0, keptPast: undefined });
      if (place.written) this.pending += String.fromCharCode(byte);
      return;
    }
    if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      const frame = this.frames.pop()!;
      if (!frame.written) return;
      if (frame.omitted > 0) {
        if (frame.count > 0) this.pending += ',';
        this.write(Buffer.from(byte === CLOSE_OBJECT ? this.abridging.omittedMembers(frame.omitted) : this.abridging.omittedItems(frame.omitted)));
      }
      this.pending += String.fromCharCode(byte);
    }
    // Colons and commas are written again where they belong.
  }

  other(bytes: Buffer): void {
    const first = bytes[0]!;
    // A run of white space, left out.
    if (first === 0x20 || first === 0x09 || first === 0x0a || first === 0x0d) {
      this.endNumber();
      return;
    }
    if (!this.number) this.number = { written: this.valueStarts().written, bytes: '' };
    if (this.number.written && this.number.bytes.length <= MAX_NUMBER_BYTES) this.number.bytes += bytes.toString('latin1', 0, MAX_NUMBER_BYTES + 1);
  }

  openString(key: boolean): void {
    this.endNumber();
    const insideKept = this.insideKept;
    const { written, mark = false } = key ? { written: this.frames.at(-1)!.written } : this.valueStarts();
    this.string = { key, written, mark };
    this.length = 0;
    this.head = [];
    this.headComplete = false;
    if (!key && written && insideKept) this.inside = new JsonInsideString({ ...this.abridging, kept: insideKept, jsonInside: undefined });
  }

  /** Counts the part's characters and keeps those of the head. */
  stringPart(raw: Buffer): void {
    if (!this.string!.written) return;
    if (this.string!.mark) {
      this.length += characterCount(raw);
      return;
    }
    let headEnd = -1;
    for (let position = 0; position < raw.length; ) {
      const byte = raw[position]!;
      const starts = charactersStartingAt(byte) > 0;
      if (starts && !this.headComplete && this.length >= this.abridging.headCharacters) {
        this.headComplete = true;
        headEnd = position;
      }
      if (byte === BACKSLASH) {
        this.length++;
        position += raw[position + 1] === LETTER_U ? UNICODE_ESCAPE_BYTES : SHORT_ESCAPE_BYTES;
        continue;
      }
      this.length += charactersStartingAt(byte);
      position++;
    }
    if (headEnd !== -1) this.head.push(Buffer.from(raw.subarray(0, headEnd)));
    else if (!this.headComplete) this.head.push(Buffer.from(raw));
    this.inside?.add(raw);
  }

  closeString(): void {
    const { key, written, mark } = this.string!;
    this.string = undefined;
    if (!written) {
      if (key) this.member = LEFT_OUT;
      return;
    }
    if (mark) {
      this.write(jsonString(this.abridging.abridge('', this.length)));
      return;
    }
    const raw = Buffer.concat(this.head);
    this.head = [];
    const inside = this.inside?.end();
    this.inside = undefined;
    // The head ends between whole characters and escapes, so it reads as a string of its own.
    const whole = this.length <= this.abridging.longerThan;
    const text = (): Buffer => (whole ? Buffer.concat([QUOTE, raw, QUOTE]) : jsonString(this.abridging.abridge(stringPartText(raw), this.length)));
    if (!key) {
      this.write(inside === undefined ? text() : jsonString(inside));
      return;
    }
    const name = whole && this.length <= MEMBER_NAME_CHARACTERS ? stringPartText(raw) : undefined;
    this.member = this.memberPlace(this.frames.at(-1)!, name);
    if (!this.member.written) return;
    this.write(text());
    this.pending += ':';
    if (name !== undefined) this.insideKept = this.abridging.jsonInside?.get(name);
  }

  /** Whether the member named `name` (undefined: a name no list holds) is written, with a comma before it when it is. */
  private memberPlace(frame: Frame, name: string | undefined): Place {
    const kept = name !== undefined && frame.kept !== undefined && Object.hasOwn(frame.kept, name) ? frame.kept[name] : undefined;
    let mark = false;
    if (this.pastBound()) {
      mark = kept === undefined && name !== undefined && this.abridging.marks?.has(name) === true;
      if ((kept === undefined && !mark) || frame.keptPast?.has(name!)) {
        frame.omitted++;
        return LEFT_OUT;
      }
      frame.keptPast ??= new Set();
      frame.keptPast.add(name!);
    }
    if (frame.count++ > 0) this.pending += ',';
    return { written: true, kept, mark };
  }

  /** Where the value that starts now goes: the document itself, an object's member as its name decided, or an array's item. */
  private valueStarts(): Place {
    this.insideKept = undefined;
    const frame = this.frames.at(-1);
    if (!frame) return { written: true, kept: this.abridging.kept };
    if (frame.object) {
      const place = this.member;
      this.member = LEFT_OUT;
      return place;
    }
    if (!frame.written) return LEFT_OUT;
    if (this.pastBound()) {
      frame.omitted++;
      return LEFT_OUT;
    }
    if (frame.count++ > 0) this.pending += ',';
    return { written: true, kept: frame.kept };
  }

  private endNumber(): void {
    const number = this.number;
    if (!number) return;
    this.number = undefined;
    if (number.written) this.pending += number.bytes.length > MAX_NUMBER_BYTES ? 'null' : number.bytes;
  }

  private pastBound(): boolean {
    return this.writtenBytes + this.pending.length > this.abridging.structureBytes;
  }

  private flush(): void {
    if (this.pending === '') return;
    this.written.push(Buffer.from(this.pending, 'latin1'));
    this.writtenBytes += this.pending.length;
    this.pending = '';
  }

  /** Keeps `bytes`, which must not be a view of a piece: a view would keep the whole piece alive. */
  private write(bytes: Buffer): void {
    this.flush();
    this.written.push(bytes);
    this.writtenBytes += bytes.length;
  }
}

const QUOTE = Buffer.from('"');

function jsonString(text: string): Buffer {
  return Buffer.from(JSON.stringify(text), 'utf8');
}

/**
 * A string's content read as a JSON document of its own, abridged as it is read: each raw part
 * (whole characters and escapes) decoded and handed on as UTF-8, a high surrogate at its end
 * held for the next (heldHighSurrogate).
 */
class JsonInsideString {
  private readonly reader: AbridgingReader;
  private readonly tokens: JsonTokenReader;
  private failed = false;
  private highSurrogate = '';

  constructor(abridging: Abridging) {
    this.reader = new AbridgingReader(abridging);
    this.tokens = new JsonTokenReader(this.reader);
  }

  add(raw: Buffer): void {
    if (this.failed) return;
    const { settled, held } = heldHighSurrogate(this.highSurrogate + stringPartText(raw));
    this.highSurrogate = held;
    this.failed = this.tokens.add(Buffer.from(settled, 'utf8')) !== undefined;
  }

  /** The abridged document; undefined when the content is no JSON document. */
  end(): string | undefined {
    if (this.failed || this.highSurrogate !== '' || this.tokens.end() !== undefined) return undefined;
    return this.reader.text().toString('utf8');
  }
}

/** How many UTF-16 code units a raw string part (whole characters and escapes) decodes to. */
function characterCount(raw: Buffer): number {
  let count = 0;
  for (let position = 0; position < raw.length; ) {
    const byte = raw[position]!;
    if (byte === BACKSLASH) {
      count++;
      position += raw[position + 1] === LETTER_U ? UNICODE_ESCAPE_BYTES : SHORT_ESCAPE_BYTES;
      continue;
    }
    count += charactersStartingAt(byte);
    position++;
  }
  return count;
}

/**
 * How many UTF-16 code units the character starting with `byte` counts for: a byte that
 * continues a UTF-8 sequence starts nothing, and a four-byte sequence is a surrogate pair.
 */
function charactersStartingAt(byte: number): number {
  if (byte >= 0x80 && byte < 0xc0) return 0;
  return byte >= 0xf0 ? 2 : 1;
}
