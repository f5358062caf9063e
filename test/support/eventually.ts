/**
 * Retries an assertion until it passes, for changes the server picks up asynchronously (a file
 * written while it runs). `withinMs` is how long the wait takes on a quiet machine: past it, the
 * wait writes what is still wrong (the assertion's last failure) to stderr once and goes on
 * waiting, since a busy machine makes the change come later, not never. Only a change still
 * missing PATIENCE times past that (and never sooner than MIN_GIVE_UP_MS) fails the test with
 * the assertion's last failure: far beyond what load explains, and a regression that stops a
 * change fails each waiting test in minutes instead of holding every one until jest's hang guard.
 * An assertion that knows the change can no longer come (the process that would make it exited)
 * throws StopWaiting, which ends the wait at once with that error.
 */
export class StopWaiting extends Error {}

const PATIENCE = 30;
const MIN_GIVE_UP_MS = 60_000;

export async function eventually<T>(assertion: () => T | Promise<T>, { withinMs = 1000, everyMs = 20 } = {}): Promise<T> {
  const expectedBy = performance.now() + withinMs;
  const givesUpAt = performance.now() + Math.max(MIN_GIVE_UP_MS, withinMs * PATIENCE);
  let reported = false;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (error instanceof StopWaiting || performance.now() >= givesUpAt) throw error;
      if (!reported && performance.now() >= expectedBy) {
        reported = true;
        process.stderr.write(
          `eventually: still waiting after ${withinMs} ms (the time on a quiet machine); the last failure:\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}
