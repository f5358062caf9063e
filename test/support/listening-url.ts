import type { ScriptProcess } from '../../dev/process/server-process';
import { eventually, StopWaiting } from './eventually';

/**
 * The URL a spawned server says it listens on (its "listening on <url>," line), and all it has
 * printed so far. If the process exits first, the wait ends with what it printed.
 */
export async function listeningUrl(child: ScriptProcess): Promise<{ url: string; output: () => string }> {
  let output = '';
  child.child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await eventually(
    () => {
      const match = /listening on (http:\/\/\S+?),/.exec(output);
      if (match) return match[1]!;
      const { exitCode, signalCode } = child.child;
      if (exitCode !== null || signalCode !== null) throw new StopWaiting(`exited (${exitCode ?? signalCode}) before listening: ${output}`);
      throw new Error(`not listening yet: ${output}`);
    },
    { withinMs: 60_000, everyMs: 50 },
  ).catch(async (error: Error) => {
    await child.stop(1000);
    throw error;
  });
  return { url, output: () => output };
}
