/**
 * better-sqlite3's native module handed to its installer the way a user's install gets it: as
 * a prebuilt binary. Its install script (`prebuild-install || node-gyp rebuild`) downloads the
 * binary from better-sqlite3's GitHub releases; here GitHub is out of reach, so every install
 * compiled SQLite from source (a minute or two of a core). prebuild-install looks in two places
 * before the network, by the name of the file it would download:
 * - a local folder (`npm_config_better_sqlite3_local_prebuilds`), which the package tests fill
 *   for the installs of the packed tarball (test/package);
 * - npm's cache (`<cache>/_prebuilds/<hash of the download address>-<file name>`), where
 *   `npm run test-tools` leaves this checkout's build, so the next `npm ci` on the machine
 *   unpacks it instead of compiling.
 * Both names are computed by prebuild-install's own code, run by the node the module was built
 * for, so they are the names it looks up. It loads the binary before it accepts it, and a
 * version or Node ABI with no file (a name holds both) compiles as before.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
const BINARY = 'build/Release/better_sqlite3.node';

/** The environment variable prebuild-install reads for better-sqlite3's local prebuilds. */
export const LOCAL_PREBUILDS_VARIABLE = 'npm_config_better_sqlite3_local_prebuilds';

/** A folder holding a better-sqlite3 install (node_modules/better-sqlite3 inside it). */
export interface SqliteBuild {
  /** The project folder whose node_modules holds the built better-sqlite3. */
  readonly project: string;
  /** The node the module was built for. */
  readonly node: string;
}

/** This checkout's better-sqlite3, built by `npm ci` for the node running the tests. */
export const CHECKOUT_SQLITE: SqliteBuild = { project: ROOT, node: process.execPath };

function moduleFolder(build: SqliteBuild): string {
  return path.join(build.project, 'node_modules', 'better-sqlite3');
}

/**
 * Where prebuild-install, run by `build.node` for this better-sqlite3, would look for the
 * download: the file name in a local prebuilds folder and the path in npm's cache
 * (`npm_config_cache`, which npm sets for the scripts it runs, else ~/.npm, as prebuild-install reads it).
 */
async function prebuildLocations(build: SqliteBuild, env: NodeJS.ProcessEnv): Promise<{ fileName: string; cached: string }> {
  const script = [
    'const from = { paths: [process.cwd()] };',
    "const util = require(require.resolve('prebuild-install/util', from));",
    "const pkg = require('./package.json');",
    "const url = util.getDownloadUrl({ ...require(require.resolve('prebuild-install/rc', from))(pkg), pkg });",
    "console.log(JSON.stringify({ fileName: require('node:path').basename(url), cached: util.cachedPrebuild(url) }));",
  ].join('\n');
  const { stdout } = await run(build.node, ['-e', script], { cwd: moduleFolder(build), env });
  return JSON.parse(stdout) as { fileName: string; cached: string };
}

/** Writes the binary as prebuild-install unpacks a download: a gzipped tar of `build/Release/better_sqlite3.node`. */
async function writePrebuild(build: SqliteBuild, file: string): Promise<void> {
  // Written beside and renamed into place, so an installer never unpacks a half-written file.
  const partial = `${file}.${process.pid}.partial`;
  try {
    await run('tar', ['-czf', partial, '-C', moduleFolder(build), BINARY]);
    renameSync(partial, file);
  } finally {
    rmSync(partial, { force: true });
  }
}

function built(build: SqliteBuild): boolean {
  return existsSync(path.join(moduleFolder(build), BINARY));
}

/** Writes, into `folder`, the prebuilt file of each build that has its binary; resolves with the environment variable to set. */
export async function sqlitePrebuilds(folder: string, builds: readonly SqliteBuild[]): Promise<Record<string, string>> {
  mkdirSync(folder, { recursive: true });
  for (const build of builds) if (built(build)) await writePrebuild(build, path.join(folder, (await prebuildLocations(build, process.env)).fileName));
  return { [LOCAL_PREBUILDS_VARIABLE]: folder };
}

/**
 * Leaves `build`'s binary in npm's cache where prebuild-install looks for its download, unless
 * a file is there already; resolves with that path, or undefined when the build has no binary.
 * `env` is the environment the next install runs in (npm's cache is `npm_config_cache` there).
 */
export async function cacheSqlitePrebuild(build: SqliteBuild = CHECKOUT_SQLITE, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (!built(build)) return undefined;
  const { cached } = await prebuildLocations(build, env);
  if (!existsSync(cached)) {
    mkdirSync(path.dirname(cached), { recursive: true });
    await writePrebuild(build, cached);
  }
  return cached;
}
