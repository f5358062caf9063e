/**
 * Lists a conversation's `events/` directory as event files in append order. A listing
 * of 100k names is read and parsed in slices so the event loop keeps serving other
 * requests: readdir would hand over all names in one callback, a 25-40 ms stall.
 */
import { lstat, opendir, readdir } from 'node:fs/promises';
import { errorCode } from './error-code';
import { type EventFileName, parseEventFileName } from './event-file-name';
import { type TimeSlice, sortInSlices } from './time-slice';

const NAMES_PER_CHECK = 1024;

/** The event files among `names`, by position; other names are left out. */
export async function eventFilesOf(names: Iterable<string>, slice: TimeSlice): Promise<EventFileName[]> {
  const files: EventFileName[] = [];
  let sinceCheck = 0;
  for (const name of names) {
    const file = parseEventFileName(name);
    if (file) files.push(file);
    if (++sinceCheck === NAMES_PER_CHECK) {
      sinceCheck = 0;
      if (slice.isOver()) await slice.yield();
    }
  }
  return sortInSlices(files, (a, b) => a.position - b.position || (a.name < b.name ? -1 : 1), slice);
}

/** Names read per trip to the thread pool: turning 1024 names into strings takes well under a millisecond. */
const NAMES_PER_READ = 1024;

/**
 * The directory's names; undefined when it no longer exists. Any other failure rejects
 * with an Error naming the directory. `expectedNames` (a guess from the directory's size)
 * picks the way: a directory of a few hundred names is read in one trip to the thread
 * pool, a larger one in trips of NAMES_PER_READ, four trips at least.
 */
export async function listDirectory(directory: string, expectedNames = Number.POSITIVE_INFINITY): Promise<string[] | undefined> {
  try {
    if (expectedNames <= NAMES_PER_READ) return await readdir(directory);
    const names: string[] = [];
    for await (const entry of await opendir(directory, { bufferSize: NAMES_PER_READ })) names.push(entry.name);
    return names;
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return undefined;
    // ENOTDIR also means gone when a parent was replaced; but an events/ that is itself a
    // file has lost the conversation's events, and the operator must hear of it.
    if (code === 'ENOTDIR' && !(await exists(directory))) return undefined;
    throw new Error(`Cannot list the event files in ${directory} (${code ?? String(error)})`, { cause: error });
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}
