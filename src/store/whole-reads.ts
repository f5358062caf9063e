/**
 * Whole reads of large stored things (over LARGE_EVENT_BYTES, event-store.ts) take turns
 * across every download of the process, so what downloads hold of them is a few copies, not
 * one per download. Every large event and file is read in pieces but one: a document of a
 * PostgreSQL catalog, which the database holds whole and the trajectory zip reads whole.
 */

/**
 * Turns at something only a few may do at once: `take` resolves once one is free, in the
 * order asked, and the turn is held until its `release` (a second call does nothing).
 */
export class Turns {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(atOnce: number) {
    this.free = atOnce;
  }

  async take(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}

/** The turns of whole reads of large events and files, across every download of the process: memory is the process's. */
export const LARGE_WHOLE_READS = new Turns(2);
