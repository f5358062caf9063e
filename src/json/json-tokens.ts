/**
 * JSON text read from its bytes in pieces, without parsing it into values and without
 * recursion: what is outside strings is handed on as it is (punctuation one byte at a time,
 * numbers, literals and white space as runs), and a string as its raw bytes between the quotes,
 * in parts that each hold whole characters and whole escapes, so a part can be decoded on its
 * own whatever cut the pieces. A reader of any size holds a piece and a few bytes, plus one
 * level of nesting per open object or array, kept in a list rather than on the stack.
 */

export interface JsonTokenSink {
  /** One of `{ } [ ] : ,`. */
  punctuation(byte: number): void;
  /** A run of white space, or all or part of a number or literal: a view of the piece. */
  other(bytes: Buffer): void;
  /** A string opens; `key` says it names an object's member. */
  openString(key: boolean): void;
  /** Raw bytes of the open string, whole characters and escapes: a view of the piece, valid until the next call. */
  stringPart(raw: Buffer): void;
  closeString(): void;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LETTER_U = 0x75;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
const PUNCTUATION: ReadonlySet<number> = new Set([OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COLON, COMMA]);
const UNICODE_ESCAPE_BYTES = 6;
/** The first byte that is no control character. */
const FIRST_PRINTABLE = 0x20;
const LITERALS: ReadonlySet<string> = new Set(['true', 'false', 'null']);
const LONGEST_LITERAL = 5;
/** How many first characters of a number or literal are kept, to name it when it is no JSON value. */
const SCALAR_HEAD = 32;

/**
 * Where a number is, read byte by byte as JSON's grammar has it: a number of any length is
 * checked without being held, as JSON.parse takes one of any length.
 */
enum NumberPart {
  Minus,
  Zero,
  Integer,
  Point,
  Fraction,
  Exponent,
  ExponentSign,
  ExponentDigits,
}
const NUMBER_ENDS: ReadonlySet<NumberPart> = new Set([NumberPart.Zero, NumberPart.Integer, NumberPart.Fraction, NumberPart.ExponentDigits]);

/** The part after `byte`, or undefined when the byte cannot come there. */
function nextNumberPart(part: NumberPart | undefined, byte: number): NumberPart | undefined {
  const digit = byte >= 0x30 && byte <= 0x39;
  const exponent = byte === 0x65 || byte === 0x45;
  switch (part) {
    case undefined:
      return byte === 0x2d ? NumberPart.Minus : byte === 0x30 ? NumberPart.Zero : digit ? NumberPart.Integer : undefined;
    case NumberPart.Minus:
      return byte === 0x30 ? NumberPart.Zero : digit ? NumberPart.Integer : undefined;
    case NumberPart.Zero:
    case NumberPart.Integer:
      if (byte === 0x2e) return NumberPart.Point;
      if (exponent) return NumberPart.Exponent;
      return part === NumberPart.Integer && digit ? NumberPart.Integer : undefined;
    case NumberPart.Point:
    case NumberPart.Fraction:
      if (digit) return NumberPart.Fraction;
      return part === NumberPart.Fraction && exponent ? NumberPart.Exponent : undefined;
    case NumberPart.Exponent:
      return byte === 0x2b || byte === 0x2d ? NumberPart.ExponentSign : digit ? NumberPart.ExponentDigits : undefined;
    default:
      return digit ? NumberPart.ExponentDigits : undefined;
  }
}

function isNumberStart(byte: number): boolean {
  return byte === 0x2d || (byte >= 0x30 && byte <= 0x39);
}

/** What may come next. */
enum Expect {
  Value,
  /** After `{`: a member's name or the close. */
  KeyOrClose,
  /** After `[`: an item or the close. */
  ValueOrClose,
  Key,
  Colon,
  /** After a member's value or an item. */
  CommaOrClose,
  End,
}

/**
 * Reads one JSON document (white space around it allowed). `add` and `end` answer an error
 * message, once, when the text is not JSON; after it, nothing more is read.
 */
export class JsonTokenReader {
  /** Whether each open container is an object (true) or an array. */
  private readonly objects: boolean[] = [];
  private expect = Expect.Value;
  private inString = false;
  /** Bytes of a piece not yet read, put in front of the next: a character or an escape the piece cut. */
  private carried: Buffer | undefined;
  /** A number or literal is being read: its first characters, and where a number is. */
  private inScalar = false;
  private scalar = '';
  private number: NumberPart | undefined;
  private failed: string | undefined;

  constructor(private readonly sink: JsonTokenSink) {}

  add(piece: Buffer): string | undefined {
    if (this.failed) return this.failed;
    const bytes = this.carried ? Buffer.concat([this.carried, piece]) : piece;
    this.carried = undefined;
    let at = 0;
    // The next backslash and quote at or after where a string is read, kept so that each search starts past the last.
    let backslash = -2;
    let quote = -2;
    while (at < bytes.length && !this.failed) {
      if (!this.inString) {
        at = this.outside(bytes, at);
        continue;
      }
      // The string's bytes up to its closing quote, or the piece's end, are one part: escapes are stepped over, not cut at.
      let position = at;
      for (;;) {
        if (backslash !== -1 && backslash < position) backslash = bytes.indexOf(BACKSLASH, position);
        if (quote !== -1 && quote < position) quote = bytes.indexOf(QUOTE, position);
        if (backslash !== -1 && (quote === -1 || backslash < quote)) {
          const escapeEnd = backslash + 1 < bytes.length && bytes[backslash + 1] === LETTER_U ? backslash + UNICODE_ESCAPE_BYTES : backslash + 2;
          if (escapeEnd > bytes.length) {
            this.part(bytes, at, backslash);
            this.carried = Buffer.from(bytes.subarray(backslash));
            return undefined;
          }
          position = escapeEnd;
          continue;
        }
        if (quote === -1) {
          const cut = wholeCharactersEnd(bytes);
          this.part(bytes, at, cut);
          if (cut < bytes.length) this.carried = Buffer.from(bytes.subarray(cut));
          return undefined;
        }
        this.part(bytes, at, quote);
        this.inString = false;
        this.sink.closeString();
        if (this.expect !== Expect.Colon) this.afterValue();
        at = quote + 1;
        break;
      }
    }
    return this.failed;
  }

  /** The error when the text ended before the document did. */
  end(): string | undefined {
    if (this.failed) return this.failed;
    if (this.inScalar) this.endScalar();
    if (!this.failed && (this.inString || this.carried || this.expect !== Expect.End))
      this.failed = this.inString || this.carried ? 'the text ends inside a string' : 'the text ends before its JSON document does';
    return this.failed;
  }

  private part(bytes: Buffer, from: number, to: number): void {
    if (to <= from) return;
    // JSON writes a control character in a string as an escape: one written raw is no JSON, as JSON.parse has it.
    if (holdsControlCharacter(bytes, from, to)) {
      this.fail('a string holds a control character JSON writes as an escape');
      return;
    }
    this.sink.stringPart(bytes.subarray(from, to));
  }

  /** Reads from `at` outside strings up to the next string's opening quote (read past) or the piece's end. */
  private outside(bytes: Buffer, at: number): number {
    let position = at;
    let runStart = at;
    const flush = (end: number) => {
      if (end > runStart) this.sink.other(bytes.subarray(runStart, end));
    };
    for (; position < bytes.length; position++) {
      const byte = bytes[position]!;
      if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) {
        if (this.inScalar) {
          flush(position);
          runStart = position;
          this.endScalar();
          if (this.failed) return bytes.length;
        }
        continue;
      }
      if (byte === QUOTE || PUNCTUATION.has(byte)) {
        flush(position);
        runStart = position + 1;
        if (this.inScalar) this.endScalar();
        if (!this.failed) this.token(byte);
        if (this.failed) return bytes.length;
        if (byte === QUOTE) return position + 1;
        continue;
      }
      if (!this.inScalar) {
        if (!this.valueExpected()) return this.fail(`unexpected "${String.fromCharCode(byte)}"`, bytes);
        flush(position);
        runStart = position;
        this.inScalar = true;
        this.number = undefined;
      }
      const numeric = this.scalar === '' ? isNumberStart(byte) : this.number !== undefined;
      if (this.scalar.length < SCALAR_HEAD) this.scalar += String.fromCharCode(byte);
      if (numeric) {
        this.number = nextNumberPart(this.number, byte);
        if (this.number === undefined) return this.fail(`"${this.scalar}" is no JSON number`, bytes);
      } else if (this.scalar.length > LONGEST_LITERAL) return this.fail(`"${this.scalar}" is no JSON value`, bytes);
    }
    flush(position);
    return position;
  }

  private token(byte: number): void {
    const inObject = this.objects.at(-1) === true;
    switch (byte) {
      case QUOTE:
        if (this.expect === Expect.Key || this.expect === Expect.KeyOrClose) {
          this.sink.openString(true);
          this.expect = Expect.Colon;
        } else if (this.valueExpected()) this.sink.openString(false);
        else return void this.fail('a string where none may be');
        this.inString = true;
        return;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        if (!this.valueExpected()) return void this.fail('an object or array where none may be');
        this.sink.punctuation(byte);
        this.objects.push(byte === OPEN_OBJECT);
        this.expect = byte === OPEN_OBJECT ? Expect.KeyOrClose : Expect.ValueOrClose;
        return;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY: {
        const closes = byte === CLOSE_OBJECT ? Expect.KeyOrClose : Expect.ValueOrClose;
        if (this.objects.length === 0 || inObject !== (byte === CLOSE_OBJECT) || (this.expect !== Expect.CommaOrClose && this.expect !== closes))
          return void this.fail(`"${String.fromCharCode(byte)}" where it closes nothing open`);
        this.sink.punctuation(byte);
        this.objects.pop();
        this.afterValue();
        return;
      }
      case COLON:
        if (this.expect !== Expect.Colon) return void this.fail('":" where no member is named');
        this.sink.punctuation(byte);
        this.expect = Expect.Value;
        return;
      default:
        if (this.expect !== Expect.CommaOrClose) return void this.fail('"," where no value ends');
        this.sink.punctuation(byte);
        this.expect = inObject ? Expect.Key : Expect.Value;
    }
  }

  private valueExpected(): boolean {
    return this.expect === Expect.Value || this.expect === Expect.ValueOrClose;
  }

  private afterValue(): void {
    this.expect = this.objects.length === 0 ? Expect.End : Expect.CommaOrClose;
  }

  private endScalar(): void {
    const { scalar, number } = this;
    this.inScalar = false;
    this.scalar = '';
    this.number = undefined;
    const whole = number === undefined ? LITERALS.has(scalar) : NUMBER_ENDS.has(number);
    if (!whole) return void this.fail(`"${scalar}" is no JSON value`);
    this.afterValue();
  }

  private fail(message: string, bytes?: Buffer): number {
    this.failed ??= `not JSON: ${message}`;
    return bytes?.length ?? 0;
  }
}

/** Whether bytes `from` to `to` hold a control character: looked at in place, as a copy of every string's bytes would be garbage the size of the document. */
function holdsControlCharacter(bytes: Buffer, from: number, to: number): boolean {
  for (let at = from; at < to; at++) if (bytes[at]! < FIRST_PRINTABLE) return true;
  return false;
}

/**
 * Where the whole UTF-8 characters of `bytes` end: before a sequence its last bytes leave
 * unfinished, so that no character is cut in two.
 */
function wholeCharactersEnd(bytes: Buffer): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back]!;
    if (byte < 0x80) return bytes.length;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return length > back ? bytes.length - back : bytes.length;
    }
  }
  return bytes.length;
}

/**
 * A string part as stringPart hands it (whole characters and escapes) as the text it spells;
 * throws when it holds an escape JSON does not have.
 */
export function stringPartText(raw: Buffer): string {
  const text = raw.toString('utf8');
  return raw.includes(BACKSLASH) ? (JSON.parse(`"${text}"`) as string) : text;
}

const HIGH_SURROGATE_FIRST = 0xd800;
const HIGH_SURROGATE_LAST = 0xdbff;

/**
 * `text` as what is settled and a high surrogate at its end, held back: a pair written as two
 * escapes may be cut between two parts, and its halves apart would each become U+FFFD in UTF-8.
 */
export function heldHighSurrogate(text: string): { settled: string; held: string } {
  const last = text.charCodeAt(text.length - 1);
  return last >= HIGH_SURROGATE_FIRST && last <= HIGH_SURROGATE_LAST
    ? { settled: text.slice(0, -1), held: text.slice(-1) }
    : { settled: text, held: '' };
}
