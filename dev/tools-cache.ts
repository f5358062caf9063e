/**
 * Where the test tools built from registries (the pinned Python environments, Node LTS with
 * its native modules) are kept: in the user's cache, shared by every clone of the project on
 * the machine, so a second clone or a CI run after a developer's reuses what was built. Each
 * entry is keyed by what it pins, so clones at different versions never share a wrong one.
 * The home folder is used rather than `XDG_CACHE_HOME`, which the test run points at a
 * temporary folder for the server's own index files.
 */
import os from 'node:os';
import path from 'node:path';

export function toolsCacheFolder(tool: 'python' | 'node-lts'): string {
  return path.join(os.homedir(), '.cache', 'agent-server-contract', tool);
}
