/**
 * Retries an assertion until it passes or the deadline passes, for changes the server
 * picks up asynchronously (a file written while it runs). On the deadline the last
 * failure is thrown, so the test reports what was still wrong.
 */
export async function eventually<T>(assertion: () => T | Promise<T>, { withinMs = 1000, everyMs = 20 } = {}): Promise<T> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (performance.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}
