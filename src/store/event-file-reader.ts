/**
 * Reads one event file without following a symbolic link by accident: the file is opened
 * with O_NOFOLLOW, and only a link whose target stays inside the conversations directory
 * is read through (see contained-path.ts). O_NONBLOCK keeps a FIFO that happens to carry
 * an event file's name from blocking a thread forever.
 *
 * Two ways in: `readEventFileNow` reads on the calling thread (5-10 us for a file in the
 * page cache), `readEventFile` through libuv's thread pool (three round trips, about three
 * times the CPU per small file); event-file-batches.ts chooses between them.
 */
import { close, closeSync, constants, open, openSync, read, readSync } from 'node:fs';
import { resolveLinkInsideRoot } from './contained-path';
import type { PayloadSlab } from './payload-slab';
import { errorCode } from './error-code';

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const SCRATCH_BYTES = 64 * 1024;

export type FileRead = { kind: 'bytes'; bytes: Buffer } | { kind: 'gone' } | { kind: 'unreadable'; reason: string };

/**
 * The file's bytes, read on the calling thread; undefined for a symbolic link, which only
 * `readEventFile` follows (after checking where it leads). Never throws.
 */
export function readEventFileNow(filePath: string, slab: PayloadSlab): FileRead | undefined {
  try {
    return { kind: 'bytes', bytes: readBytesNow(filePath, slab) };
  } catch (error) {
    const code = errorCode(error);
    return code === 'ELOOP' ? undefined : failedRead(code, error);
  }
}

/**
 * The file's bytes; `gone` when it no longer exists (deleted since it was listed);
 * `unreadable` with a short reason otherwise. Never throws.
 */
export async function readEventFile(filePath: string, realRoot: string, slab: PayloadSlab): Promise<FileRead> {
  try {
    return { kind: 'bytes', bytes: await readBytes(filePath, slab) };
  } catch (error) {
    const code = errorCode(error);
    return code === 'ELOOP' ? readThroughLink(filePath, realRoot, slab) : failedRead(code, error);
  }
}

async function readThroughLink(linkPath: string, realRoot: string, slab: PayloadSlab): Promise<FileRead> {
  try {
    const link = await resolveLinkInsideRoot(realRoot, linkPath);
    if (!link.ok) {
      return link.reason === 'missing'
        ? { kind: 'unreadable', reason: 'symbolic link to a missing file' }
        : { kind: 'unreadable', reason: 'symbolic link to a file outside the conversations directory, not followed' };
    }
    return { kind: 'bytes', bytes: await readBytes(link.target, slab) };
  } catch (error) {
    return failedRead(errorCode(error), error);
  }
}

function failedRead(code: string | undefined, error: unknown): FileRead {
  if (code === 'ENOENT') return { kind: 'gone' };
  if (code === 'EISDIR' || code === 'EAGAIN') return { kind: 'unreadable', reason: 'not a regular file' };
  return { kind: 'unreadable', reason: `cannot be read (${code ?? String(error)})` };
}

// Both readers: open, read into a scratch buffer, close, and no stat. A read shorter than
// the scratch buffer is the end of a regular file (POSIX); a file still being appended to
// may come out truncated, and is read again when its next change is reported.

const nowScratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);

function readBytesNow(filePath: string, slab: PayloadSlab): Buffer {
  const fd = openSync(filePath, OPEN_FLAGS);
  try {
    const chunks: Buffer[] = [];
    for (;;) {
      const length = readSync(fd, nowScratch, 0, SCRATCH_BYTES, null);
      if (length < SCRATCH_BYTES) return joined(chunks, nowScratch, length, slab);
      chunks.push(Buffer.from(nowScratch));
    }
  } finally {
    closeSync(fd);
  }
}

const MAX_IDLE_SCRATCH = 64;
const idleScratch: Buffer[] = [];

async function readBytes(filePath: string, slab: PayloadSlab): Promise<Buffer> {
  const fd = await new Promise<number>((resolve, reject) => open(filePath, OPEN_FLAGS, (error, opened) => (error ? reject(error) : resolve(opened))));
  const scratch = idleScratch.pop() ?? Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  try {
    const chunks: Buffer[] = [];
    for (;;) {
      const length = await new Promise<number>((resolve, reject) => read(fd, scratch, 0, SCRATCH_BYTES, null, (error, n) => (error ? reject(error) : resolve(n))));
      if (length < SCRATCH_BYTES) return joined(chunks, scratch, length, slab);
      chunks.push(Buffer.from(scratch));
    }
  } finally {
    if (idleScratch.length < MAX_IDLE_SCRATCH) idleScratch.push(scratch);
    close(fd, () => undefined);
  }
}

/** The whole file: earlier full chunks (only for files over 64 KB), then the last read, copied into the slab. */
function joined(fullChunks: Buffer[], scratch: Buffer, length: number, slab: PayloadSlab): Buffer {
  if (fullChunks.length === 0) return slab.copy(scratch, length);
  const whole = Buffer.concat([...fullChunks, scratch.subarray(0, length)]);
  return slab.copy(whole, whole.length);
}
