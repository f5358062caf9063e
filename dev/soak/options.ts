/** What a soak run does; every field has a default sized for `npm run soak` (docs/hardening.md). */
export interface SoakOptions {
  /** How long readers and the writer run. */
  seconds: number;
  /** Concurrent readers, each paging through conversations over keep-alive connections. */
  clients: number;
  /** Conversations in the temporary data directory. */
  conversations: number;
  /** Events each conversation starts with (fixture generator). */
  initialEvents: number;
  /** Events the writer appends per second, spread over the conversations. */
  appendsPerSecond: number;
}

export const DEFAULT_SOAK_OPTIONS: SoakOptions = {
  seconds: 60,
  clients: 64,
  conversations: 4,
  initialEvents: 400,
  appendsPerSecond: 200,
};
