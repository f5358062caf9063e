/**
 * The entries of a zip archive (a trajectory download), read from its central directory:
 * names in the archive's order with their uncompressed bytes. `--compare` compares two
 * servers' archives by these, since times and compression are each writer's own.
 * Stored and deflated entries only, the classic format (no ZIP64), as the contract's servers write them.
 */
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  content: Buffer;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const END_RECORD_SIZE = 22;
const LONGEST_COMMENT = 0xffff;
const STORED = 0;
const DEFLATED = 8;
/** An entry inflating past this is not read (a server under test may send anything, a zip bomb included). */
const LARGEST_ENTRY_BYTES = 256 * 1024 * 1024;

/** The archive's entries; undefined when the bytes are not a zip archive this reader understands, or an entry is too large to compare. */
export function zipEntries(bytes: Buffer): ZipEntry[] | undefined {
  try {
    return readEntries(bytes);
  } catch {
    return undefined;
  }
}

function readEntries(bytes: Buffer): ZipEntry[] | undefined {
  const end = endRecordOffset(bytes);
  if (end === undefined) return undefined;
  const count = bytes.readUInt16LE(end + 10);
  let offset = bytes.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index++) {
    if (bytes.readUInt32LE(offset) !== CENTRAL_HEADER) return undefined;
    const method = bytes.readUInt16LE(offset + 10);
    const compressedSize = bytes.readUInt32LE(offset + 20);
    const nameLength = bytes.readUInt16LE(offset + 28);
    const extraLength = bytes.readUInt16LE(offset + 30);
    const commentLength = bytes.readUInt16LE(offset + 32);
    const localOffset = bytes.readUInt32LE(offset + 42);
    const name = bytes.toString('utf8', offset + 46, offset + 46 + nameLength);
    if (bytes.readUInt32LE(localOffset) !== LOCAL_HEADER) return undefined;
    const dataStart = localOffset + 30 + bytes.readUInt16LE(localOffset + 26) + bytes.readUInt16LE(localOffset + 28);
    const data = bytes.subarray(dataStart, dataStart + compressedSize);
    if (method === STORED) entries.push({ name, content: Buffer.from(data) });
    else if (method === DEFLATED) entries.push({ name, content: inflateRawSync(data, { maxOutputLength: LARGEST_ENTRY_BYTES }) });
    else return undefined;
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Where the end-of-central-directory record starts, searched from the end past any archive comment. */
function endRecordOffset(bytes: Buffer): number | undefined {
  const lowest = Math.max(0, bytes.length - END_RECORD_SIZE - LONGEST_COMMENT);
  for (let offset = bytes.length - END_RECORD_SIZE; offset >= lowest; offset--) {
    if (bytes.readUInt32LE(offset) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  return undefined;
}

/** The first difference between two archives' entries (names in order, then contents), or undefined when they hold the same. */
export function zipDifference(first: readonly ZipEntry[], second: readonly ZipEntry[]): string | undefined {
  for (let index = 0; index < Math.max(first.length, second.length); index++) {
    const [a, b] = [first[index], second[index]];
    if (a?.name !== b?.name) {
      return `archives hold different entries: ${a?.name ?? '(none)'} vs ${b?.name ?? '(none)'} at entry ${index} (${first.length} vs ${second.length} entries)`;
    }
    if (!a!.content.equals(b!.content)) return `archive entry ${a!.name} differs (${a!.content.length} vs ${b!.content.length} bytes)`;
  }
  return undefined;
}
