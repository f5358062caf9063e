/**
 * JSON text made smaller without being parsed, from its bytes in pieces: every string longer
 * than a reader wants is replaced by what `abridge` makes of its head and its length, and
 * everything else is copied as it is. A reader that carries only the start of long texts (the
 * trace exports) parses the result, and so never holds a long string whole, nor the document.
 */
import { JsonTokenReader, type JsonTokenSink, heldHighSurrogate, stringPartText } from './json-tokens';

export interface Abridging {
  /** A string of more characters than this is abridged. */
  longerThan: number;
  /** How many of a long string's first characters `abridge` is given (at least `longerThan`). */
  headCharacters: number;
  /** What replaces a long string, from its head and its whole length, in UTF-16 code units as JavaScript counts a string's. */
  abridge(head: string, length: number): string;
  /** The most bytes the abridged text may take: past it, `abridgedJson` gives up. */
  maxBytes: number;
  /**
   * Members whose string value is itself a JSON document (a completion log's `log_data`): that
   * document is abridged as it is read, as the outer one, so its short members stay whole
   * where cutting the string would lose them. A value that is no JSON is cut as any string.
   */
  jsonInside?: ReadonlySet<string>;
}

const QUOTE_BYTE = Buffer.from('"');
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const LETTER_U = 0x75;
const UNICODE_ESCAPE_BYTES = 6;
const SHORT_ESCAPE_BYTES = 2;

/**
 * `pieces` (a JSON document's bytes, in order) with its long strings abridged; `undefined` when
 * the abridged text would take more than `maxBytes`, which happens only to a document whose
 * size is in its structure or in many strings, not in a few long ones, or when the bytes are
 * not JSON.
 */
export async function abridgedJson(pieces: AsyncIterable<Buffer>, abridging: Abridging): Promise<Buffer | undefined> {
  const reader = new AbridgingReader(abridging);
  const tokens = new JsonTokenReader(reader);
  for await (const piece of pieces) if (tokens.add(piece) || !reader.withinBounds()) return undefined;
  return tokens.end() ? undefined : reader.text();
}

/**
 * Takes a document's tokens (json-tokens.ts): copies what is outside strings; inside one it
 * counts characters the way JavaScript counts them (a UTF-8 sequence of four bytes is two, an
 * escape is one) and keeps the bytes of the head, so that a string's fate is known at its
 * closing quote without holding more than its head.
 */
class AbridgingReader implements JsonTokenSink {
  private readonly written: Buffer[] = [];
  private writtenBytes = 0;
  /** What was read outside strings since the last string, one character a byte: written as one run. */
  private outside = '';
  private length = 0;
  private head: Buffer[] = [];
  private headComplete = false;
  /** The raw bytes of the member name being read, while it is short enough to be one of `jsonInside`. */
  private name: Buffer[] | undefined;
  private nameBytes = 0;
  /** The last member name read, when it is one of `jsonInside`. */
  private jsonMember = false;
  /** The document inside the string being read, under a `jsonInside` member. */
  private inside: JsonInsideString | undefined;

  constructor(private readonly abridging: Abridging) {}

  withinBounds(): boolean {
    return this.writtenBytes + this.outside.length <= this.abridging.maxBytes;
  }

  text(): Buffer {
    this.writeOutside();
    return Buffer.concat(this.written, this.writtenBytes);
  }

  punctuation(byte: number): void {
    this.outside += String.fromCharCode(byte);
    // The member's value is an object or a list, not a string.
    if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) this.jsonMember = false;
  }

  other(bytes: Buffer): void {
    this.outside += bytes.toString('latin1');
  }

  openString(key: boolean): void {
    this.writeOutside();
    this.length = 0;
    this.head = [];
    this.headComplete = false;
    if (!this.abridging.jsonInside) return;
    if (key) {
      this.name = [];
      this.nameBytes = 0;
    } else if (this.jsonMember) {
      this.inside = new JsonInsideString({ ...this.abridging, jsonInside: undefined });
      this.jsonMember = false;
    }
  }

  /** Counts the part's characters and keeps those of the head. */
  stringPart(raw: Buffer): void {
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
    if (this.name) {
      this.nameBytes += raw.length;
      if (this.nameBytes <= MEMBER_NAME_BYTES) this.name.push(Buffer.from(raw));
    }
  }

  closeString(): void {
    const raw = Buffer.concat(this.head);
    this.head = [];
    if (this.name) {
      const name = this.nameBytes <= MEMBER_NAME_BYTES ? stringPartText(Buffer.concat(this.name)) : '';
      this.jsonMember = this.abridging.jsonInside?.has(name) === true;
      this.name = undefined;
    }
    const inside = this.inside?.end();
    this.inside = undefined;
    if (inside !== undefined) {
      this.write(Buffer.from(JSON.stringify(inside), 'utf8'));
      return;
    }
    if (this.length <= this.abridging.longerThan) {
      this.write(QUOTE_BYTE);
      this.write(raw);
      this.write(QUOTE_BYTE);
      return;
    }
    // The head ends between whole characters and escapes, so it reads as a string of its own.
    const head = stringPartText(raw);
    this.write(Buffer.from(JSON.stringify(this.abridging.abridge(head, this.length)), 'utf8'));
  }

  private writeOutside(): void {
    if (this.outside === '') return;
    this.write(Buffer.from(this.outside, 'latin1'));
    this.outside = '';
  }

  /** Keeps `bytes`, which must not be a view of a piece: a view would keep the whole piece alive. */
  private write(bytes: Buffer): void {
    this.written.push(bytes);
    this.writtenBytes += bytes.length;
  }
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
    this.failed = this.tokens.add(Buffer.from(settled, 'utf8')) !== undefined || !this.reader.withinBounds();
  }

  /** The abridged document; undefined when the content is no JSON document, or outgrew the bounds. */
  end(): string | undefined {
    if (this.failed || this.highSurrogate !== '' || this.tokens.end() !== undefined) return undefined;
    return this.reader.text().toString('utf8');
  }
}

/** The longest member name `jsonInside` is looked up by: a longer one is none of them. */
const MEMBER_NAME_BYTES = 64;

/**
 * How many UTF-16 code units the character starting with `byte` counts for: a byte that
 * continues a UTF-8 sequence starts nothing, and a four-byte sequence is a surrogate pair.
 */
function charactersStartingAt(byte: number): number {
  if (byte >= 0x80 && byte < 0xc0) return 0;
  return byte >= 0xf0 ? 2 : 1;
}
