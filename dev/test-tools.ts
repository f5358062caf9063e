/**
 * `npm run test-tools` (run by `npm test` before jest): brings the tools the tests run beside
 * this checkout's Node, side by side, so no test waits on an install within its timeout: the
 * pinned Python environments (`npm run python-tools` alone) and Node LTS with better-sqlite3
 * built for it. pip waits mostly on the network and the compiler on a core, so all at once they
 * take about as long as the longest of them. It also leaves this checkout's better-sqlite3 build
 * in npm's cache as prebuild-install would have downloaded it (dev/sqlite-prebuilds.ts), so the
 * next `npm ci` on the machine unpacks it instead of compiling SQLite again. A tool that cannot
 * be installed is reported in one line and the run goes on: the tests that need it fail with
 * the same line.
 */
import { NODE_LTS_MAJOR, nodeLts, SQLITE_PACKAGE, sqliteOnNodeLts } from './node-lts/environment';
import { pythonEnvironment } from './python/environment';
import { cacheSqlitePrebuild } from './sqlite-prebuilds';
import { PYTHON_TOOLSETS } from './python/toolsets';

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function pythonTool(toolset: (typeof PYTHON_TOOLSETS)[number]): Promise<void> {
  const started = performance.now();
  try {
    const environment = await pythonEnvironment(toolset);
    say(`${toolset.name}: ready (${environment.directory}, ${seconds(started)})`);
  } catch (error) {
    say((error as Error).message);
  }
}

async function nodeLtsTools(): Promise<void> {
  const started = performance.now();
  try {
    const lts = await nodeLts();
    say(`Node ${NODE_LTS_MAJOR}: ready (${lts.node}, ${seconds(started)})`);
    const building = performance.now();
    const folder = await sqliteOnNodeLts(lts);
    say(`${SQLITE_PACKAGE} for Node ${NODE_LTS_MAJOR}: ready (${folder}, ${seconds(building)})`);
  } catch (error) {
    say(`Node ${NODE_LTS_MAJOR}: ${(error as Error).message}`);
  }
}

async function sqlitePrebuildForNextInstall(): Promise<void> {
  try {
    const cached = await cacheSqlitePrebuild();
    say(
      cached
        ? `${SQLITE_PACKAGE} for Node ${process.versions.node}: in npm's cache for the next npm ci (${cached})`
        : `${SQLITE_PACKAGE} for Node ${process.versions.node}: not built in this checkout, nothing to leave in npm's cache`,
    );
  } catch (error) {
    say(`${SQLITE_PACKAGE} for Node ${process.versions.node}: not left in npm's cache: ${(error as Error).message}`);
  }
}

function seconds(since: number): string {
  return `${Math.round((performance.now() - since) / 1000)} s`;
}

say(`test tools: the pinned Python environments and Node ${NODE_LTS_MAJOR} with ${SQLITE_PACKAGE}; a first run installs them, later runs reuse them`);
void Promise.all([...PYTHON_TOOLSETS.map(pythonTool), nodeLtsTools(), sqlitePrebuildForNextInstall()]);
