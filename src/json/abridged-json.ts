/**
 * JSON text made smaller without being parsed, from its bytes in pieces: every string longer
 * than a reader wants is replaced by what `abridge` makes of its head and its length, and
 * everything else is copied as it is. A reader that carries only the start of long texts (the
 * trace exports) parses the result, and so never holds a long string whole, nor the document.
 */

export interface Abridging {
  /** A string of more characters than this is abridged. */
  longerThan: number;
  /** How many of a long string's first characters `abridge` is given (at least `longerThan`). */
  headCharacters: number;
  /** What replaces a long string, from its head and its whole length, in UTF-16 code units as JavaScript counts a string's. */
  abridge(head: string, length: number): string;
  /** The most bytes the abridged text may take: past it, `abridgedJson` gives up. */
  maxBytes: number;
}

const QUOTE = 0x22;
const QUOTE_BYTE = Buffer.from('"');
const BACKSLASH = 0x5c;
const LETTER_U = 0x75;
/** Bytes still to skip after a backslash once its escape's letter is known: `\uXXXX` has four more. */
const UNICODE_ESCAPE_DIGITS = 4;
const AFTER_BACKSLASH = -1;

/**
 * `pieces` (a JSON document's bytes, in order) with its long strings abridged; `undefined` when
 * the abridged text would take more than `maxBytes`, which happens only to a document whose
 * size is in its structure or in many strings, not in a few long ones.
 */
export async function abridgedJson(pieces: AsyncIterable<Buffer>, abridging: Abridging): Promise<Buffer | undefined> {
  const reader = new AbridgingReader(abridging);
  for await (const piece of pieces) if (!reader.add(piece)) return undefined;
  return reader.text();
}

/**
 * Reads a document's bytes piece by piece: outside strings it copies runs up to the next
 * quote; inside one it counts characters the way JavaScript counts them (a UTF-8 sequence of
 * four bytes is two, an escape is one) and keeps the bytes of the head, so that a string's
 * fate is known at its closing quote without holding more than its head.
 */
class AbridgingReader {
  private readonly written: Buffer[] = [];
  private writtenBytes = 0;
  private inString = false;
  /** Escape bytes still to skip in the current string, or AFTER_BACKSLASH just after one. */
  private escape = 0;
  private length = 0;
  private head: Buffer[] = [];
  private headComplete = false;

  constructor(private readonly abridging: Abridging) {}

  /** Reads one more piece; false once the text has outgrown `maxBytes`. */
  add(piece: Buffer): boolean {
    let at = 0;
    while (at < piece.length) {
      if (!this.inString) {
        const quote = piece.indexOf(QUOTE, at);
        const end = quote === -1 ? piece.length : quote;
        if (end > at) this.write(Buffer.from(piece.subarray(at, end)));
        if (quote === -1) break;
        this.openString();
        at = quote + 1;
        continue;
      }
      const close = this.readString(piece, at);
      if (close === -1) break;
      this.closeString();
      at = close + 1;
    }
    return this.writtenBytes <= this.abridging.maxBytes;
  }

  text(): Buffer {
    return Buffer.concat(this.written, this.writtenBytes);
  }

  private openString(): void {
    this.inString = true;
    this.escape = 0;
    this.length = 0;
    this.head = [];
    this.headComplete = false;
  }

  /** Counts and keeps the string's bytes from `at`: the position of its closing quote, or -1 when it goes on in the next piece. */
  private readString(piece: Buffer, at: number): number {
    const headStart = at;
    let headEnd = -1;
    let position = at;
    for (; position < piece.length; position++) {
      const byte = piece[position]!;
      if (this.escape === AFTER_BACKSLASH) {
        this.escape = byte === LETTER_U ? UNICODE_ESCAPE_DIGITS : 0;
        continue;
      }
      if (this.escape > 0) {
        this.escape--;
        continue;
      }
      if (byte === QUOTE) break;
      const characters = charactersStartingAt(byte);
      if (characters === 0) continue;
      if (!this.headComplete && this.length >= this.abridging.headCharacters) {
        this.headComplete = true;
        headEnd = position;
      }
      if (byte === BACKSLASH) this.escape = AFTER_BACKSLASH;
      this.length += characters;
    }
    if (headEnd !== -1) this.head.push(Buffer.from(piece.subarray(headStart, headEnd)));
    else if (!this.headComplete) this.head.push(Buffer.from(piece.subarray(headStart, position)));
    return position === piece.length ? -1 : position;
  }

  private closeString(): void {
    this.inString = false;
    const raw = Buffer.concat(this.head);
    this.head = [];
    if (this.length <= this.abridging.longerThan) {
      this.write(QUOTE_BYTE);
      this.write(raw);
      this.write(QUOTE_BYTE);
      return;
    }
    // The head ends between whole characters and escapes, so it reads as a string of its own.
    const head = JSON.parse(`"${raw.toString('utf8')}"`) as string;
    this.write(Buffer.from(JSON.stringify(this.abridging.abridge(head, this.length)), 'utf8'));
  }

  /** Keeps `bytes`, which must not be a view of a piece: a view would keep the whole piece alive. */
  private write(bytes: Buffer): void {
    this.written.push(bytes);
    this.writtenBytes += bytes.length;
  }
}

/**
 * How many UTF-16 code units the character starting with `byte` counts for: a byte that
 * continues a UTF-8 sequence starts nothing, a four-byte sequence is a surrogate pair, and
 * an escape (from its backslash) is one, a surrogate written as `\uXXXX` being one of two.
 */
function charactersStartingAt(byte: number): number {
  if (byte >= 0x80 && byte < 0xc0) return 0;
  return byte >= 0xf0 ? 2 : 1;
}
