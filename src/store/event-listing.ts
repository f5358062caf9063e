/**
 * Lists a conversation's `events/` directory as event files in append order. A listing
 * of 100k names is parsed in slices so the event loop keeps serving other requests.
 */
import { readdir } from 'node:fs/promises';
import { errorCode } from './error-code';
import { EventFileName, parseEventFileName } from './event-file-name';
import { TimeSlice } from './time-slice';

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
  return files.sort((a, b) => a.position - b.position || (a.name < b.name ? -1 : 1));
}

/**
 * The directory's names; undefined when it no longer exists. Any other failure rejects
 * with an Error naming the directory.
 */
export async function listDirectory(directory: string): Promise<string[] | undefined> {
  try {
    return await readdir(directory);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new Error(`Cannot list the event files in ${directory} (${code ?? String(error)})`, { cause: error });
  }
}
