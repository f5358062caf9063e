/**
 * The trajectory download: a conversation's files as a zip archive, handed out piece by
 * piece as the reader takes them, so memory holds one file at a time whatever the
 * conversation's size, and a piece of a large file (as stored when it holds no secret,
 * masked as it is read otherwise). Entries are named `<hex id>/<path>` after one for the
 * directory itself, as the reference names them; every file passes through the secret
 * policy (maskedContent).
 */
import { Readable, pipeline } from 'node:stream';
import { promisify } from 'node:util';
import { crc32, createDeflateRaw, deflateRaw } from 'node:zlib';
import { LARGE_EVENT_BYTES } from '../store/event-store';
import { LARGE_WHOLE_READS } from '../store/whole-reads';
import type { ConversationFile, OpenedFile } from './conversation-catalog';
import { NotJsonMasking, maskedJsonLinesPieces } from './masked-json-lines';
import { PYTHON_DUMPS } from '../json/json-text';
import {
  JsonMaskingStream,
  KnownBytesMasking,
  type KnownSecrets,
  PieceScan,
  mayHoldSecrets,
  maskedJson,
  maskedJsonPieces,
  maskingPlan,
} from '../secrets';

const deflate = promisify(deflateRaw);

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** Version 2.0: deflate and directories. */
const VERSION = 20;
/** Made on Unix, so the external attributes carry file modes. */
const MADE_BY = (3 << 8) | VERSION;
/** Bit 11: names are UTF-8. */
const UTF8_NAMES = 0x0800;
/** Bit 3: the checksum and sizes follow the data, in a data descriptor. */
const DATA_DESCRIPTOR = 0x0008;
const DATA_DESCRIPTOR_SIGNATURE = 0x08074b50;
const STORED = 0;
const DEFLATED = 8;
const DIRECTORY_ATTRIBUTES = ((0o40755 << 16) | 0x10) >>> 0;
const FILE_ATTRIBUTES = (0o100644 << 16) >>> 0;
/** The classic format's limits; a conversation beyond them would need ZIP64, which this writer does not write. */
const MAX_ENTRIES = 0xffff;
const MAX_OFFSET = 0xffffffff;

interface CentralRecord {
  name: Buffer;
  flags: number;
  method: number;
  time: number;
  date: number;
  crc: number;
  compressedSize: number;
  size: number;
  attributes: number;
  offset: number;
}

/**
 * The archive of `files` (a conversation directory's, in path order), piece by piece: each
 * piece is read from its file only when the previous one has been taken. Throws when the
 * archive would exceed the classic zip limits. The conversation's folder entry carries the
 * time of its newest file, as the reference's carries the directory's own time, which what
 * is written in it moves: two downloads of an unchanged conversation are the same bytes.
 */
export async function* trajectoryArchive(hex: string, files: readonly ConversationFile[], known: KnownSecrets): AsyncGenerator<Buffer> {
  const zip = new ZipWriter(hex);
  const newest = files.reduce<Date | undefined>((latest, file) => (latest && latest >= file.modifiedAt ? latest : file.modifiedAt), undefined);
  yield* zip.whole(`${hex}/`, newest ?? new Date(), undefined);
  for (const file of files) {
    const name = `${hex}/${file.relativePath}`;
    if (file.relativePath.endsWith('/')) {
      yield* zip.whole(name, file.modifiedAt, undefined);
      continue;
    }
    const large = file.size > LARGE_EVENT_BYTES;
    if (large && file.open) {
      // A large file is sent as it is read, in pieces: as it is when it holds nothing the policy masks, masked as it comes otherwise.
      const opened = await file.open();
      if (!opened) continue;
      try {
        yield* zip.streamed(name, file.modifiedAt, await largeFilePieces(name, opened, known));
      } finally {
        await opened.close();
      }
      continue;
    }
    // Read, masked and compressed whole. A large file that cannot be opened to be read in pieces (a
    // document of a PostgreSQL catalog) takes turns with every other download's, held until its bytes are taken.
    const release = large ? await LARGE_WHOLE_READS.take() : undefined;
    try {
      const data = await file.read();
      if (data !== undefined) yield* zip.whole(name, file.modifiedAt, maskedContent(name, data, known));
    } finally {
      release?.();
    }
  }
  yield zip.end();
}

/**
 * A large file's pieces as they leave, from a first reading of them: as they are when nothing
 * in them is masked (maskedContent would leave them as they are); otherwise masked as they
 * are read, giving what maskedContent gives, or for JSON the same value in the file's own
 * layout rather than Python's: a JSON document by the streaming masker (maskedJsonPieces),
 * JSON lines line by line (masked-json-lines.ts), and any other bytes, a JSON document that
 * is not JSON included, with the known values masked in them (KnownSecrets.maskInBytes).
 */
async function largeFilePieces(name: string, opened: OpenedFile, known: KnownSecrets): Promise<AsyncIterable<Buffer>> {
  if (isJsonDocument(name)) {
    const plan = await maskingPlan(() => opened.pieces({ reused: true }), known, AS_THE_REFERENCE);
    if (plan.kind === 'unchanged') return unchanged(name, opened.pieces(), known, plan.seenClean);
    if (plan.kind === 'streamed') return maskedJsonPieces(opened.pieces(), known, plan, AS_THE_REFERENCE);
    return maskedNotJsonPieces(name, opened.pieces(), known);
  }
  const scan = pieceScanFor(name, known);
  for await (const piece of opened.pieces({ reused: true })) {
    scan.add(piece);
    if (scan.found) break;
  }
  if (!scan.found) return unchanged(name, opened.pieces(), known, true);
  if (isJsonLines(name))
    return maskedJsonLinesPieces(
      name,
      (reused) => opened.pieces({ reused }),
      known,
      AS_THE_REFERENCE,
      (line) => maskedJsonLine(line, known),
    );
  return maskedBytesPieces(opened.pieces(), known);
}

/** The known values masked in the bytes as they are read (KnownSecrets.maskInBytes). */
async function* maskedBytesPieces(pieces: AsyncIterable<Buffer>, known: KnownSecrets): AsyncGenerator<Buffer> {
  const masking = new KnownBytesMasking(known);
  for await (const piece of pieces) yield masking.add(piece);
  yield masking.end();
}

/** A JSON document the first reading found not to be JSON, masked as other bytes are; cut if it is JSON now. */
async function* maskedNotJsonPieces(name: string, pieces: AsyncIterable<Buffer>, known: KnownSecrets): AsyncGenerator<Buffer> {
  const masking = new NotJsonMasking(known, () => new Error(`${name} was rewritten while it was archived, and is now JSON`));
  for await (const piece of pieces) yield masking.add(piece);
  yield masking.end();
}

/**
 * The pieces of a file found to hold nothing to mask, read again; the download is cut if they
 * now hold something (the file was rewritten meanwhile). Bytes the policy's expression found
 * nothing in (`seenClean`) are looked at the same way again; a JSON document that only the
 * masker found nothing to change in is masked again, and its piece sent once the next has been
 * looked at too, since what masks a string may be known only further on.
 */
async function* unchanged(name: string, pieces: AsyncIterable<Buffer>, known: KnownSecrets, seenClean: boolean): AsyncGenerator<Buffer> {
  const rewritten = () => new Error(`${name} was rewritten while it was archived, and now holds what the secret policy masks`);
  if (seenClean) {
    const scan = pieceScanFor(name, known);
    for await (const piece of pieces) {
      scan.add(piece);
      if (scan.found) throw rewritten();
      yield piece;
    }
    return;
  }
  const masking = new JsonMaskingStream(known, AS_THE_REFERENCE);
  let previous: Buffer | undefined;
  for await (const piece of pieces) {
    masking.add(piece);
    if (masking.changed || masking.failure) throw rewritten();
    if (previous) yield previous;
    previous = piece;
  }
  masking.end();
  if (masking.changed || masking.failure) throw rewritten();
  if (previous) yield previous;
}

function isJsonDocument(name: string): boolean {
  return name.toLowerCase().endsWith('.json');
}

function isJsonLines(name: string): boolean {
  return name.toLowerCase().endsWith('.jsonl');
}

/** A scan for what the policy may mask in a file: JSON documents and each line of JSON lines as JSON, other text for the known values. */
function pieceScanFor(name: string, known: KnownSecrets): PieceScan {
  const lower = name.toLowerCase();
  return lower.endsWith('.json') || lower.endsWith('.jsonl') ? new PieceScan(known, AS_THE_REFERENCE) : new PieceScan(known, { text: true });
}

/** The entries of one archive as they are written, and their records for the central directory at its end. */
class ZipWriter {
  private readonly records: CentralRecord[] = [];
  private offset = 0;

  constructor(private readonly hex: string) {}

  /** An entry whose content is known whole (undefined for a directory): its header, then its compressed bytes. */
  async *whole(name: string, modifiedAt: Date, content: Buffer | undefined): AsyncGenerator<Buffer> {
    const compressed = content === undefined ? Buffer.alloc(0) : await deflate(content);
    const record = this.record(name, modifiedAt, content === undefined);
    record.crc = crc32(content ?? compressed);
    record.size = content?.length ?? 0;
    record.compressedSize = compressed.length;
    yield this.written(localHeader(record));
    if (compressed.length > 0) yield this.written(compressed);
    this.records.push(record);
  }

  /**
   * An entry compressed as its pieces come: its header says a data descriptor follows the
   * data, with the checksum and sizes known only then (zip's streaming form, which every
   * reader of the classic format takes).
   */
  async *streamed(name: string, modifiedAt: Date, pieces: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    const record = this.record(name, modifiedAt, false);
    record.flags |= DATA_DESCRIPTOR;
    yield this.written(localHeader(record));
    const counted = async function* () {
      for await (const piece of pieces) {
        record.crc = crc32(piece, record.crc);
        record.size += piece.length;
        yield piece;
      }
    };
    const deflater = createDeflateRaw();
    // A failure of the reading destroys the deflater with it, which ends the loop below with that error.
    pipeline(Readable.from(counted()), deflater, () => {});
    for await (const compressed of deflater as AsyncIterable<Buffer>) {
      record.compressedSize += compressed.length;
      yield this.written(compressed);
    }
    yield this.written(dataDescriptor(record));
    this.records.push(record);
  }

  end(): Buffer {
    const central = Buffer.concat(this.records.map(centralHeader));
    return Buffer.concat([central, endOfCentralDirectory(this.records.length, central.length, this.offset)]);
  }

  private record(name: string, modifiedAt: Date, directory: boolean): CentralRecord {
    if (this.records.length >= MAX_ENTRIES) throw this.tooLarge();
    return {
      name: Buffer.from(name, 'utf8'),
      flags: UTF8_NAMES,
      method: directory ? STORED : DEFLATED,
      ...dosDateTime(modifiedAt),
      crc: 0,
      compressedSize: 0,
      size: 0,
      attributes: directory ? DIRECTORY_ATTRIBUTES : FILE_ATTRIBUTES,
      offset: this.offset,
    };
  }

  private written(bytes: Buffer): Buffer {
    this.offset += bytes.length;
    if (this.offset > MAX_OFFSET) throw this.tooLarge();
    return bytes;
  }

  private tooLarge(): Error {
    return new Error(`The conversation ${this.hex} is too large for a zip archive without ZIP64 (more than 65535 files or 4 GiB)`);
  }
}

/**
 * The file as it leaves: JSON documents (`.json`, and each line of a `.jsonl`) with the secret
 * policy applied (src/secrets), rewritten as the reference rewrites a file it redacted
 * (Python's `json.dumps` layout) only when something was masked; the conversation's known
 * secrets masked in any other bytes, as their UTF-8 bytes (KnownSecrets.maskInBytes: text or
 * not, as JSON that is not JSON).
 */
export function maskedContent(name: string, data: Buffer, known: KnownSecrets): Buffer {
  if (isJsonLines(name)) return maskedJsonLines(data, known);
  if (isJsonDocument(name)) return maskedJson(data, known, PYTHON_DUMPS, AS_THE_REFERENCE);
  return known.maskInBytes(data);
}

/** One line of JSON lines, without its line feed, as it leaves: a blank line as it is. */
function maskedJsonLine(line: Buffer, known: KnownSecrets): Buffer {
  return line.toString('utf8').trim() === '' ? line : maskedJson(line, known, PYTHON_DUMPS, AS_THE_REFERENCE);
}

function maskedJsonLines(data: Buffer, known: KnownSecrets): Buffer {
  if (!mayHoldSecrets(data, known, AS_THE_REFERENCE)) return data;
  let changed = false;
  const lines: Buffer[] = [];
  let start = 0;
  while (start < data.length) {
    const end = data.indexOf(NEWLINE, start);
    const stop = end === -1 ? data.length : end + 1;
    const line = data.subarray(start, end === -1 ? data.length : end);
    const masked = maskedJsonLine(line, known);
    if (masked !== line) changed = true;
    lines.push(masked, data.subarray(line.length + start, stop));
    start = stop;
  }
  return changed ? Buffer.concat(lines) : data;
}

const NEWLINE = 0x0a;
/** The reference's trajectory export masks every Fernet token, a provider's encrypted reasoning too. */
const AS_THE_REFERENCE = { maskProviderCiphertext: true } as const;

function localHeader(record: CentralRecord): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(LOCAL_HEADER, 0);
  writeEntryFields(header, 4, record);
  // Extra field: none.
  return Buffer.concat([header, record.name]);
}

function centralHeader(record: CentralRecord): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(CENTRAL_HEADER, 0);
  header.writeUInt16LE(MADE_BY, 4);
  writeEntryFields(header, 6, record);
  // Extra field, comment, disk number and internal attributes: none.
  header.writeUInt32LE(record.attributes, 38);
  header.writeUInt32LE(record.offset, 42);
  return Buffer.concat([header, record.name]);
}

/** The fields both headers carry in the same order, from the version needed to the name's length. */
function writeEntryFields(header: Buffer, at: number, record: CentralRecord): void {
  header.writeUInt16LE(VERSION, at);
  header.writeUInt16LE(record.flags, at + 2);
  header.writeUInt16LE(record.method, at + 4);
  header.writeUInt16LE(record.time, at + 6);
  header.writeUInt16LE(record.date, at + 8);
  header.writeUInt32LE(record.crc, at + 10);
  header.writeUInt32LE(record.compressedSize, at + 14);
  header.writeUInt32LE(record.size, at + 18);
  header.writeUInt16LE(record.name.length, at + 22);
}

/** What follows a streamed entry's data: its checksum and sizes, after the optional signature readers expect. */
function dataDescriptor(record: CentralRecord): Buffer {
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(DATA_DESCRIPTOR_SIGNATURE, 0);
  descriptor.writeUInt32LE(record.crc, 4);
  descriptor.writeUInt32LE(record.compressedSize, 8);
  descriptor.writeUInt32LE(record.size, 12);
  return descriptor;
}

function endOfCentralDirectory(entries: number, size: number, offset: number): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  end.writeUInt16LE(entries, 8);
  end.writeUInt16LE(entries, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return end;
}

/** MS-DOS date and time in local time, two-second resolution, as zip stores them (years 1980 to 2107, nearer ones taken outside). */
function dosDateTime(at: Date): { time: number; date: number } {
  const year = Math.min(2107, Math.max(1980, at.getFullYear()));
  return {
    time: (at.getHours() << 11) | (at.getMinutes() << 5) | Math.floor(at.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((at.getMonth() + 1) << 5) | at.getDate(),
  };
}
