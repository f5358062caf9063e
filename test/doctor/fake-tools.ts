import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Shell bodies of the fake commands to put in a directory; a command left out is not installed. */
export type FakeTools = Partial<Record<'kubectl' | 'helm', string>>;

/** Scripts that behave like the real tools on a healthy machine. */
export const HEALTHY_TOOLS = {
  kubectl: 'printf "storageclass.storage.k8s.io/standard\\nstorageclass.storage.k8s.io/gp2\\n"',
  helm: 'echo "v4.0.1+g1a2b3c4"',
} as const satisfies FakeTools;

/**
 * Creates a temporary directory holding tiny real shell scripts named after the tools, to be used
 * as the whole PATH of a command runner. Returns the directory and a function that removes it.
 */
export async function makeFakeToolDir(tools: FakeTools): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'doctor-tools-'));
  for (const [name, body] of Object.entries(tools)) {
    const file = join(dir, name);
    await writeFile(file, `#!/bin/sh\n${body}\n`);
    await chmod(file, 0o755);
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
