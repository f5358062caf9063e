/**
 * Names of event files in the reference layout (docs/reference-behaviour.md, "On-disk layout"):
 * `event-<index, 5+ digits>-<event id>.json`. The reference's pattern allows only hex
 * digits and hyphens in the id part; its own tests store ids such as `event1`, so any
 * id without a path separator is accepted here. Other files in `events/` are ignored.
 */
const EVENT_FILE_NAME = /^event-(\d{5,})-([^/\\]+)\.json$/;

export interface EventFileName {
  readonly name: string;
  /** The numeric index: append order, and the event's storage position. */
  readonly position: number;
  /** The id part of the name, used when the event itself stores no id. */
  readonly id: string;
}

/** The parts of an event file's name, or undefined for any other file. */
export function parseEventFileName(name: string): EventFileName | undefined {
  const match = EVENT_FILE_NAME.exec(name);
  if (!match) return undefined;
  const position = Number(match[1]);
  if (!Number.isSafeInteger(position)) return undefined;
  return { name, position, id: match[2]! };
}
