/**
 * Lists a conversation's `events/` directory as event files in append order. A listing
 * of 100k names is read and parsed in slices so the event loop keeps serving other
 * requests: readdir would hand over all names in one callback, one long stall.
 */
import { lstat, opendir, readdir } from 'node:fs/promises';
import { errorCode } from '../error-code';
import { type EventFileName, parseEventFileName } from './event-file-name';
import { TimeSlice, sortInSlices } from './time-slice';

const NAMES_PER_CHECK = 1024;
/** Names one system call reads of a large directory. */
const NAMES_PER_READ = 1024;
/** How long listing runs before other work gets a turn. */
const LISTING_SLICE_MS = 2;

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
  return byPosition(files) ?? sortInSlices(files, (a, b) => a.position - b.position || (a.name < b.name ? -1 : 1), slice);
}

/**
 * The files in position order by placing each at its position, in one pass: the usual
 * listing, positions 0 to n-1 each once, needs no comparison sort. Undefined when two files
 * share a position or positions are too sparse for it.
 */
function byPosition(files: readonly EventFileName[]): EventFileName[] | undefined {
  let highest = -1;
  for (const file of files) highest = Math.max(highest, file.position);
  if (highest >= 2 * files.length + NAMES_PER_CHECK) return undefined;
  const at = new Array<EventFileName | undefined>(highest + 1);
  for (const file of files) {
    if (at[file.position] !== undefined) return undefined;
    at[file.position] = file;
  }
  return at.filter((file) => file !== undefined);
}

/**
 * The directory's names; undefined when it no longer exists. Any other failure rejects
 * with an Error naming the directory. `expectedNames` (a guess from the directory's size)
 * picks the way: a directory of a few hundred names is read in one trip to the thread
 * pool; a larger one is opened there and then read here, `NAMES_PER_READ` names a system
 * call, in time slices: reading it entry by entry through promises cost this thread many
 * times more.
 */
export async function listDirectory(directory: string, expectedNames = Number.POSITIVE_INFINITY): Promise<string[] | undefined> {
  try {
    if (expectedNames <= NAMES_PER_READ) return await readdir(directory);
    const dir = await opendir(directory, { bufferSize: NAMES_PER_READ });
    try {
      const names: string[] = [];
      const slice = new TimeSlice(LISTING_SLICE_MS);
      for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
        names.push(entry.name);
        if (slice.isOver()) await slice.yield();
      }
      return names;
    } finally {
      dir.closeSync();
    }
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
