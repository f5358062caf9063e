/**
 * Reads one event file without following a symbolic link by accident: the file is opened
 * with O_NOFOLLOW, and only a link whose target stays inside the conversations directory
 * is read through (see directory/open/contained-path.ts). O_NONBLOCK keeps a FIFO that happens to carry
 * an event file's name from blocking a thread forever.
 *
 * Two ways in: `readEventFileNow` reads on the calling thread (cheap for a file in the
 * page cache), a batch of one directory's files opened from it once (EventsDirectory),
 * `readEventFile` through libuv's thread pool (three round trips, several times the CPU
 * per small file), for a symbolic link; ingest/event-file-decoder.ts chooses.
 *
 * Both read into a scratch buffer the caller owns and hand back a view of it, valid until
 * the next read into the same scratch: the caller decodes first and copies only the bytes
 * it serves, so a file that is skipped is never copied.
 */
import { constants as bufferConstants } from 'node:buffer';
import { type Stats, close, closeSync, constants, fstat, fstatSync, lstatSync, open, openSync, read, readSync } from 'node:fs';
import path from 'node:path';
import { descriptorInsideRoot, descriptorName, descriptorTarget, isInsideRoot, resolveLinkInsideRoot } from './contained-path';
import { errorCode } from '../error-code';

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** Holds nearly every event file in one read; a larger one is read in several chunks and joined. */
export const SCRATCH_BYTES = 64 * 1024;

/** `bytes` is a view of the scratch buffer, or a buffer of its own for a file larger than it. */
export type FileRead = { kind: 'bytes'; bytes: Buffer } | { kind: 'gone' } | { kind: 'unreadable'; reason: string };

/** The file's size and modification time, taken before its bytes were read (so a later write shows as a change). */
export interface ReadVersion {
  size: number;
  modifiedMs: number;
}

/**
 * The path's own size and time (a link's, not its target's); undefined when it is gone. On
 * the calling thread: a caller compares many files, and each call through the thread pool
 * cost about three times the CPU.
 */
export function versionOfPath(filePath: string): ReadVersion | undefined {
  let stats: Stats | undefined;
  try {
    stats = lstatSync(filePath, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  return stats && { size: stats.size, modifiedMs: stats.mtimeMs };
}

/**
 * An events directory whose files a batch reads on the calling thread. Where the system
 * names descriptors (Linux's /proc/PID/fd), the directory is opened once and each file
 * through its descriptor: the directories above it are not looked up again for every file,
 * and a directory on the path swapped for a link after the open changes nothing for the
 * descriptor, so where the files lead is checked once, the directory's, instead of once a
 * file. Where it cannot be (no such names, the directory gone, or leading out of the
 * root), each file is opened by its path and checked, and fails as it would alone.
 */
export class EventsDirectory {
  private constructor(
    readonly realRoot: string,
    private readonly prefix: string,
    /** Whether where the directory leads was checked when it was opened, so no file's own check is needed. */
    readonly checked: boolean,
    private readonly fd: number | undefined,
  ) {}

  /** Closed by the caller (close) once the batch is read. */
  static open(directory: string, realRoot: string): EventsDirectory {
    const byPath = new EventsDirectory(realRoot, `${directory}${path.sep}`, false, undefined);
    let fd: number;
    try {
      fd = openSync(directory, constants.O_RDONLY | constants.O_DIRECTORY);
    } catch {
      return byPath;
    }
    const opened = descriptorTarget(fd);
    if (opened === undefined || !isInsideRoot(realRoot, opened)) {
      closeSync(fd);
      return byPath;
    }
    return new EventsDirectory(realRoot, `${descriptorName(fd)}${path.sep}`, true, fd);
  }

  /** The path a listed file of the directory is opened by. */
  pathOf(name: string): string {
    return `${this.prefix}${name}`;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }
}

/**
 * A listed file of `directory`: its bytes and version, read on the calling thread;
 * undefined for a symbolic link, which only `readEventFile` follows (after checking where
 * it leads). Never throws.
 */
export function readEventFileNow(directory: EventsDirectory, name: string, scratch: Buffer): (FileRead & { version?: ReadVersion }) | undefined {
  try {
    return { kind: 'bytes', ...readBytesNow(directory, name, scratch) };
  } catch (error) {
    const code = errorCode(error);
    return code === 'ELOOP' ? undefined : failedRead(code, error);
  }
}

/**
 * The file's bytes; `gone` when it no longer exists (deleted since it was listed);
 * `unreadable` with a short reason otherwise. Never throws.
 */
export async function readEventFile(filePath: string, realRoot: string, scratch: Buffer): Promise<FileRead> {
  try {
    return { kind: 'bytes', bytes: await readBytes(filePath, realRoot, scratch) };
  } catch (error) {
    const code = errorCode(error);
    return code === 'ELOOP' ? readThroughLink(filePath, realRoot, scratch) : failedRead(code, error);
  }
}

async function readThroughLink(linkPath: string, realRoot: string, scratch: Buffer): Promise<FileRead> {
  try {
    const link = await resolveLinkInsideRoot(realRoot, linkPath);
    if (!link.ok) {
      return link.reason === 'missing'
        ? { kind: 'unreadable', reason: 'symbolic link to a missing file' }
        : { kind: 'unreadable', reason: 'symbolic link to a file outside the conversations directory, not followed' };
    }
    return { kind: 'bytes', bytes: await readBytes(link.target, realRoot, scratch) };
  } catch (error) {
    return failedRead(errorCode(error), error);
  }
}

/** The path opened is a pipe, a socket or a device: none is read. */
class NotRegularFile extends Error {}

/** The file opened is outside the root: a directory on its path was swapped for a link out of it after it was checked. */
class OpenedOutsideRoot extends Error {}

/**
 * An event is decoded from one string, and no string of this runtime is longer than this: a
 * larger file (a sparse one costs its writer nothing) could never be decoded, and reading it
 * would only fill memory.
 */
export const MAX_EVENT_FILE_BYTES = bufferConstants.MAX_STRING_LENGTH;

class TooLargeToDecode extends Error {}

function failedRead(code: string | undefined, error: unknown): FileRead {
  if (code === 'ENOENT') return { kind: 'gone' };
  if (code === 'EISDIR' || code === 'EAGAIN' || error instanceof NotRegularFile) return { kind: 'unreadable', reason: 'not a regular file' };
  if (error instanceof OpenedOutsideRoot)
    return { kind: 'unreadable', reason: 'reached through a link out of the conversations directory, not read' };
  if (error instanceof TooLargeToDecode)
    return { kind: 'unreadable', reason: `larger than the longest text this runtime decodes (${MAX_EVENT_FILE_BYTES} bytes), not read` };
  return { kind: 'unreadable', reason: `cannot be read (${code ?? String(error)})` };
}

// Both readers: open, read into the scratch buffer, close. A read shorter than the scratch
// buffer is the end of a regular file (POSIX); a file still being appended to may come out
// truncated, and is read again when its next change is reported. The reader on the calling
// thread also stats the open file, which costs it nothing beside a stat of the path through
// the thread pool.

function readBytesNow(directory: EventsDirectory, name: string, scratch: Buffer): { bytes: Buffer; version: ReadVersion } {
  const fd = openSync(directory.pathOf(name), OPEN_FLAGS);
  try {
    const stats = fstatSync(fd);
    // A pipe with a writer, or a device, would feed the read below without end.
    if (!stats.isFile()) throw new NotRegularFile();
    if (!directory.checked && !descriptorInsideRoot(directory.realRoot, fd)) throw new OpenedOutsideRoot();
    if (stats.size > MAX_EVENT_FILE_BYTES) throw new TooLargeToDecode();
    const version = { size: stats.size, modifiedMs: stats.mtimeMs };
    const chunks: Buffer[] = [];
    for (;;) {
      const length = readSync(fd, scratch, 0, scratch.length, null);
      if (length < scratch.length) return { bytes: joined(chunks, scratch, length), version };
      chunks.push(Buffer.from(scratch));
    }
  } finally {
    closeSync(fd);
  }
}

async function readBytes(filePath: string, realRoot: string, scratch: Buffer): Promise<Buffer> {
  const fd = await new Promise<number>((resolve, reject) => open(filePath, OPEN_FLAGS, (error, opened) => (error ? reject(error) : resolve(opened))));
  try {
    const stats = await new Promise<import('node:fs').Stats>((resolve, reject) =>
      fstat(fd, (error, found) => (error ? reject(error) : resolve(found))),
    );
    if (!stats.isFile()) throw new NotRegularFile();
    if (!descriptorInsideRoot(realRoot, fd)) throw new OpenedOutsideRoot();
    if (stats.size > MAX_EVENT_FILE_BYTES) throw new TooLargeToDecode();
    const chunks: Buffer[] = [];
    for (;;) {
      const length = await new Promise<number>((resolve, reject) =>
        read(fd, scratch, 0, scratch.length, null, (error, n) => (error ? reject(error) : resolve(n))),
      );
      if (length < scratch.length) return joined(chunks, scratch, length);
      chunks.push(Buffer.from(scratch));
    }
  } finally {
    close(fd, () => undefined);
  }
}

/** The whole file: the scratch's view when one read held it, else every chunk joined (files larger than the scratch). */
function joined(fullChunks: Buffer[], scratch: Buffer, length: number): Buffer {
  const last = scratch.subarray(0, length);
  return fullChunks.length === 0 ? last : Buffer.concat([...fullChunks, last]);
}
