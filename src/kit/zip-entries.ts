/**
 * The entries of a zip archive (a trajectory download), read from its central directory:
 * names in the archive's order with their uncompressed bytes. `--compare` compares two
 * servers' archives by these, since times and compression are each writer's own.
 * Stored and deflated entries only, the classic format (no ZIP64), as the contract's servers write them.
 */
import { inflateRawSync } from 'node:zlib';
import { KIT_READ_LIMITS } from './http';

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
/**
 * The archive's entries; undefined when the bytes are not a zip archive this reader
 * understands; `tooLarge` when its entries together inflate past what the kit reads (a
 * server under test may send anything, a zip bomb included), which is reported as a finding.
 */
export function zipEntries(
  bytes: Buffer,
  maxInflatedBytes: number = KIT_READ_LIMITS.inflatedArchiveBytes,
): ZipEntry[] | { tooLarge: string } | undefined {
  try {
    return readEntries(bytes, maxInflatedBytes);
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return tooLarge(maxInflatedBytes);
    return undefined;
  }
}

function tooLarge(maxInflatedBytes: number): { tooLarge: string } {
  return { tooLarge: `the archive inflates past what the kit reads (${maxInflatedBytes} bytes, all entries together); it was not compared` };
}

function readEntries(bytes: Buffer, maxInflatedBytes: number): ZipEntry[] | { tooLarge: string } | undefined {
  const end = endRecordOffset(bytes);
  if (end === undefined) return undefined;
  const count = bytes.readUInt16LE(end + 10);
  let offset = bytes.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  let inflated = 0;
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
    if (method !== STORED && method !== DEFLATED) return undefined;
    // What is left of the total bounds each entry, so the archive as a whole never inflates past it.
    const left = maxInflatedBytes - inflated;
    if (left <= 0 && (method === DEFLATED || data.length > 0)) return tooLarge(maxInflatedBytes);
    const content = method === STORED ? Buffer.from(data) : inflateRawSync(data, { maxOutputLength: Math.max(1, left) });
    inflated += content.length;
    if (inflated > maxInflatedBytes) return tooLarge(maxInflatedBytes);
    entries.push({ name, content });
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
