/**
 * Session keys in a benchmark run. The bench reads `SESSION_API_KEY` the way the server
 * does, and the servers it spawns inherit the environment, so with a key set our server
 * requires it and every request the bench sends carries it (the baseline ignores it).
 */
export function sessionKeyHeaders(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const key = env['SESSION_API_KEY'];
  return key ? { 'X-Session-API-Key': key } : {};
}
