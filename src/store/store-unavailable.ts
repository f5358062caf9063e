/**
 * The store's storage cannot be reached right now (a database that is down, restarting or
 * too slow): the request may succeed when retried, so the server answers 503, not 500.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
