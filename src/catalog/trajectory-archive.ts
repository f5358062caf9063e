/**
 * The trajectory download: a conversation's files as a zip archive, handed out piece by
 * piece as the reader takes them, so memory holds one file at a time whatever the
 * conversation's size. Entries
 * are named `<hex id>/<path>` after one for the directory itself, as the reference names
 * them; every file passes through the secret policy (maskedContent).
 */
import { promisify } from 'node:util';
import { crc32, deflateRaw } from 'node:zlib';
import { LARGE_EVENT_BYTES } from '../store/event-store';
import { LARGE_WHOLE_READS } from '../store/whole-reads';
import type { ConversationFile } from './conversation-catalog';
import { PYTHON_DUMPS } from '../json/json-text';
import { type KnownSecrets, mayHoldSecrets, maskedJson } from '../secrets';

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
const STORED = 0;
const DEFLATED = 8;
const DIRECTORY_ATTRIBUTES = ((0o40755 << 16) | 0x10) >>> 0;
const FILE_ATTRIBUTES = (0o100644 << 16) >>> 0;
/** The classic format's limits; a conversation beyond them would need ZIP64, which this writer does not write. */
const MAX_ENTRIES = 0xffff;
const MAX_OFFSET = 0xffffffff;

interface CentralRecord {
  name: Buffer;
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
 * archive would exceed the classic zip limits.
 */
export async function* trajectoryArchive(
  hex: string,
  files: readonly ConversationFile[],
  known: KnownSecrets,
  now = new Date(),
): AsyncGenerator<Buffer> {
  const records: CentralRecord[] = [];
  let offset = 0;
  const entries: { name: string; modifiedAt: Date; size: number; read: () => Promise<Buffer | undefined> }[] = [
    { name: `${hex}/`, modifiedAt: now, size: 0, read: async () => Buffer.alloc(0) },
    ...files.map((file) => ({ name: `${hex}/${file.relativePath}`, modifiedAt: file.modifiedAt, size: file.size, read: () => file.read() })),
  ];
  for (const entry of entries) {
    const directory = entry.name.endsWith('/');
    // A large file is read, masked and compressed whole: in turns with every other download's large reads, held until its bytes are taken.
    const release = entry.size > LARGE_EVENT_BYTES ? await LARGE_WHOLE_READS.take() : undefined;
    try {
      const data = directory ? Buffer.alloc(0) : await entry.read();
      if (data === undefined) continue;
      const content = directory ? data : maskedContent(entry.name, data, known);
      const compressed = directory ? content : await deflate(content);
      const { time, date } = dosDateTime(entry.modifiedAt);
      const record: CentralRecord = {
        name: Buffer.from(entry.name, 'utf8'),
        method: directory ? STORED : DEFLATED,
        time,
        date,
        crc: crc32(content),
        compressedSize: compressed.length,
        size: content.length,
        attributes: directory ? DIRECTORY_ATTRIBUTES : FILE_ATTRIBUTES,
        offset,
      };
      if (records.length >= MAX_ENTRIES || offset + compressed.length + 30 + record.name.length > MAX_OFFSET) {
        throw new Error(`The conversation ${hex} is too large for a zip archive without ZIP64 (more than 65535 files or 4 GiB)`);
      }
      records.push(record);
      const header = localHeader(record);
      offset += header.length + compressed.length;
      yield header;
      if (compressed.length > 0) yield compressed;
    } finally {
      release?.();
    }
  }
  const centralStart = offset;
  const central = Buffer.concat(records.map(centralHeader));
  yield Buffer.concat([central, endOfCentralDirectory(records.length, central.length, centralStart)]);
}

/**
 * The file as it leaves: JSON documents (`.json`, and each line of a `.jsonl`) with the secret
 * policy applied (src/secrets), rewritten as the reference rewrites a file it redacted
 * (Python's `json.dumps` layout) only when something was masked; the conversation's known
 * secrets masked in any other text; bytes that are not UTF-8 text as they are.
 */
export function maskedContent(name: string, data: Buffer, known: KnownSecrets): Buffer {
  const lower = name.toLowerCase();
  if (lower.endsWith('.jsonl')) return maskedJsonLines(data, known);
  if (lower.endsWith('.json')) return maskedJson(data, known, PYTHON_DUMPS, AS_THE_REFERENCE);
  const text = utf8(data);
  if (text === undefined) return data;
  const masked = known.maskIn(text);
  return masked === text ? data : Buffer.from(masked, 'utf8');
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
    const masked = line.toString('utf8').trim() === '' ? line : maskedJson(line, known, PYTHON_DUMPS, AS_THE_REFERENCE);
    if (masked !== line) changed = true;
    lines.push(masked, data.subarray(line.length + start, stop));
    start = stop;
  }
  return changed ? Buffer.concat(lines) : data;
}

const NEWLINE = 0x0a;
/** The reference's trajectory export masks every Fernet token, a provider's encrypted reasoning too. */
const AS_THE_REFERENCE = { maskProviderCiphertext: true } as const;

function utf8(data: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return undefined;
  }
}

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
  header.writeUInt16LE(UTF8_NAMES, at + 2);
  header.writeUInt16LE(record.method, at + 4);
  header.writeUInt16LE(record.time, at + 6);
  header.writeUInt16LE(record.date, at + 8);
  header.writeUInt32LE(record.crc, at + 10);
  header.writeUInt32LE(record.compressedSize, at + 14);
  header.writeUInt32LE(record.size, at + 18);
  header.writeUInt16LE(record.name.length, at + 22);
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
