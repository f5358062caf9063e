import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../../src/cli/server-node-flags';
import { startServerProcess } from '../../dev/soak/server-process';

describe('the node flags the server runs with', () => {
  it('are in `npm start`', () => {
    const packageJson = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { scripts: { start: string } };
    const startFlags = packageJson.scripts.start.split(/\s+/);

    expect(SERVER_NODE_FLAGS.length).toBeGreaterThan(0);
    for (const flag of SERVER_NODE_FLAGS) expect(startFlags).toContain(flag);
  });

  it('reach the server process the bench, the soak and the tests start', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'node-flags-'));
    const server = await startServerProcess({ conversationsPath: root });
    try {
      const commandLine = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0');
      for (const flag of SERVER_NODE_FLAGS) expect(commandLine).toContain(flag);
    } finally {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
