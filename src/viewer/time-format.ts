/**
 * Stored timestamps are written by the agent server as naive local time
 * (`2026-06-16T05:39:48.701247`); they are shown as stored, to the second, never
 * shifted into the browser's zone, which may not be the server's.
 */
export function displayTimestamp(timestamp: string | undefined | null): string {
  if (!timestamp) return '';
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(timestamp);
  return match ? `${match[1]} ${match[2]}` : timestamp;
}

/** The time of day alone, for the timeline, where the date repeats. */
export function displayTimeOfDay(timestamp: string | undefined | null): string {
  const match = /T(\d{2}:\d{2}:\d{2})/.exec(timestamp ?? '');
  return match ? match[1]! : displayTimestamp(timestamp);
}
