/**
 * Retries an assertion until it passes, for changes the server picks up asynchronously (a file
 * written while it runs). There is no deadline here: a busy machine makes the change come later,
 * not never, and the one limit on a wait is jest's hang guard (testTimeout in jest.config.js).
 * `withinMs` is how long the wait takes on a quiet machine: past it, the wait writes what is
 * still wrong (the assertion's last failure) to stderr once, so a change that never comes shows
 * its cause beside the hang guard's failure, and goes on waiting. An assertion that knows the
 * change can no longer come (the process that would make it exited) throws StopWaiting, which
 * ends the wait at once with that error.
 */
export class StopWaiting extends Error {}

export async function eventually<T>(assertion: () => T | Promise<T>, { withinMs = 1000, everyMs = 20 } = {}): Promise<T> {
  const expectedBy = performance.now() + withinMs;
  let reported = false;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (error instanceof StopWaiting) throw error;
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
