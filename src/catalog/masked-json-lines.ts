/**
 * A large JSON lines file of a conversation's directory with the secret policy applied line by
 * line as it is read, for the trajectory zip, in bounded memory whatever the file and whatever
 * its longest line. A raw line feed never occurs inside a JSON string (JSON escapes it), so
 * lines are cut at every 0x0A byte. A line up to WHOLE_LINE_BYTES is held and masked whole,
 * as the zip masks a small file's lines; a longer one is masked as it is read, as a large
 * JSON document is (masked-json-stream.ts), from what a first reading of the file found of it:
 * its late credentials, or that it is not JSON, in which case its known values are masked in
 * its bytes (KnownSecrets.maskInBytes), as a line that is not JSON is masked whole.
 */
import { type CopyOptions, JsonMaskingStream, KnownBytesMasking, type KnownSecrets, type LateCredentials, slices } from '../secrets';
import { LATE_CREDENTIALS } from '../secrets/masked-json-stream';
import { JsonTokenReader, type JsonTokenSink } from '../json/json-tokens';

/** The longest line held and masked whole: as long as an event the store hands out whole. */
export const WHOLE_LINE_BYTES = 1024 * 1024;

const LINE_FEED = 0x0a;
/** What the second reading gathers before handing it on: lines are often short, and each hand-off costs. */
const GATHERED_BYTES = 64 * 1024;

/** What the first reading found of a line longer than WHOLE_LINE_BYTES: its late credentials, or that it is not JSON (undefined). */
interface LongLine {
  index: number;
  plan: LateCredentials | undefined;
}

/** A piece cut at its line feeds: the parts of lines it holds, each saying whether its line ends there (the feed left out). */
function* lineParts(piece: Buffer): Generator<{ bytes: Buffer; ends: boolean }> {
  let start = 0;
  for (let feed = piece.indexOf(LINE_FEED); feed !== -1; feed = piece.indexOf(LINE_FEED, start)) {
    yield { bytes: piece.subarray(start, feed), ends: true };
    start = feed + 1;
  }
  if (start < piece.length) yield { bytes: piece.subarray(start), ends: false };
}

/**
 * The file's lines masked as they are read, from two readings of it (`read` gives its pieces
 * from the start each time it is called): `maskedLine` masks a line held whole. Throws, which
 * cuts the download, when the second reading does not find the lines the first planned from
 * (the file was rewritten in between).
 */
export async function* maskedJsonLinesPieces(
  name: string,
  read: (reused: boolean) => AsyncIterable<Buffer>,
  known: KnownSecrets,
  options: CopyOptions,
  maskedLine: (line: Buffer) => Buffer,
): AsyncGenerator<Buffer> {
  const longLines = await longLinePlans(read(true), known, options);
  const rewritten = () => new Error(`${name} was rewritten while it was archived: its long lines are not those planned from`);
  let gathered: Buffer[] = [];
  let gatheredBytes = 0;
  const gather = (bytes: Buffer) => {
    gathered.push(bytes);
    gatheredBytes += bytes.length;
  };
  let held: Buffer[] = [];
  let heldBytes = 0;
  let long: LongLineMasking | undefined;
  let index = 0;
  let next = 0;
  let open = false;
  const endLine = () => {
    if (long) gather(long.end());
    else gather(maskedLine(Buffer.concat(held, heldBytes)));
    long = undefined;
    held = [];
    heldBytes = 0;
    index++;
  };
  for await (const piece of read(false)) {
    for (const { bytes, ends } of lineParts(piece)) {
      if (long) gather(long.add(bytes));
      else {
        held.push(bytes);
        heldBytes += bytes.length;
        if (heldBytes > WHOLE_LINE_BYTES) {
          while (next < longLines.length && longLines[next]!.index < index) next++;
          const planned = longLines[next];
          if (planned?.index !== index) throw rewritten();
          long = new LongLineMasking(known, options, planned.plan, rewritten);
          gather(long.add(Buffer.concat(held, heldBytes)));
          held = [];
          heldBytes = 0;
        }
      }
      open = !ends;
      if (ends) {
        endLine();
        gather(LINE_END);
      }
      if (gatheredBytes >= GATHERED_BYTES) {
        yield Buffer.concat(gathered, gatheredBytes);
        gathered = [];
        gatheredBytes = 0;
      }
    }
  }
  // The last line, when no line feed ends it.
  if (open) endLine();
  if (gatheredBytes > 0) yield Buffer.concat(gathered, gatheredBytes);
}

const LINE_END = Buffer.from([LINE_FEED]);

/**
 * The first reading: each line longer than WHOLE_LINE_BYTES read by the masker without
 * writing, for its late credentials (at most LATE_CREDENTIALS noted across the file, so what
 * is kept is bounded) or to find it is not JSON. A piece given by `pieces` is kept only as a
 * copy.
 */
async function longLinePlans(pieces: AsyncIterable<Buffer>, known: KnownSecrets, options: CopyOptions): Promise<LongLine[]> {
  const found: LongLine[] = [];
  let room = LATE_CREDENTIALS;
  let held: Buffer[] = [];
  let heldBytes = 0;
  let planning: JsonMaskingStream | undefined;
  let index = 0;
  let open = false;
  const plan = (bytes: Buffer) => {
    for (const slice of slices(bytes)) if (!planning!.failure) planning!.add(slice);
  };
  const endLine = () => {
    if (planning) {
      planning.end();
      const failed = planning.failure !== undefined;
      found.push({ index, plan: failed ? undefined : { lateCredentials: planning.lateCredentials, valuesMaskedFrom: planning.valuesMaskedFrom } });
      if (!failed) room = Math.max(0, room - planning.lateCredentials.length);
    }
    planning = undefined;
    held = [];
    heldBytes = 0;
    index++;
  };
  for await (const piece of pieces) {
    for (const { bytes, ends } of lineParts(piece)) {
      if (planning) plan(bytes);
      else {
        held.push(Buffer.from(bytes));
        heldBytes += bytes.length;
        if (heldBytes > WHOLE_LINE_BYTES) {
          planning = new JsonMaskingStream(known, options, undefined, room);
          for (const part of held) plan(part);
          held = [];
        }
      }
      open = !ends;
      if (ends) endLine();
    }
  }
  if (open) endLine();
  return found;
}

/** A long line masked as it is read: as JSON with its plan, or as bytes that are not JSON. */
class LongLineMasking {
  private readonly json: JsonMaskingStream | undefined;
  private readonly bytes: NotJsonMasking | undefined;

  constructor(
    known: KnownSecrets,
    options: CopyOptions,
    plan: LateCredentials | undefined,
    private readonly rewritten: () => Error,
  ) {
    if (plan) this.json = new JsonMaskingStream(known, options, plan);
    else this.bytes = new NotJsonMasking(known, rewritten);
  }

  add(bytes: Buffer): Buffer {
    if (this.bytes) return this.bytes.add(bytes);
    const masked: Buffer[] = [];
    for (const slice of slices(bytes)) {
      masked.push(this.json!.add(slice));
      if (this.json!.failure) throw this.rewritten();
    }
    return Buffer.concat(masked);
  }

  end(): Buffer {
    if (this.bytes) return this.bytes.end();
    const rest = this.json!.end();
    if (this.json!.failure) throw this.rewritten();
    return rest;
  }
}

/**
 * Bytes a first reading found not to be JSON, with the known values masked in them as they
 * are read (KnownSecrets.maskInBytes); `end` throws `rewritten` when they turn out to be JSON
 * after all (rewritten since, and then masked as JSON would have been otherwise), which cuts the
 * download before it ends.
 */
export class NotJsonMasking {
  private readonly masking: KnownBytesMasking;
  private readonly tokens = new JsonTokenReader(NO_TOKENS);
  private notJson = false;

  constructor(
    known: KnownSecrets,
    private readonly rewritten: () => Error,
  ) {
    this.masking = new KnownBytesMasking(known);
  }

  add(bytes: Buffer): Buffer {
    if (!this.notJson) this.notJson = this.tokens.add(bytes) !== undefined;
    return this.masking.add(bytes);
  }

  end(): Buffer {
    if (!this.notJson && this.tokens.end() === undefined) throw this.rewritten();
    return this.masking.end();
  }
}

const NO_TOKENS: JsonTokenSink = { punctuation() {}, other() {}, openString() {}, stringPart() {}, closeString() {} };
