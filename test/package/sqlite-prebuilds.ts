/**
 * better-sqlite3's native module for the package tests' installs, handed to its installer the
 * way a user's install gets it: as a prebuilt binary. A user's `npm install` downloads it from
 * better-sqlite3's releases (prebuild-install); here those downloads are out of reach, so each
 * install of the tarball compiled SQLite from source (a minute or two of a core, every run).
 * prebuild-install looks in a local folder first (`npm_config_better_sqlite3_local_prebuilds`),
 * by the same file name it would download; this module writes that folder from builds that
 * already exist on the machine: this checkout's own (compiled for this Node by `npm ci`) and
 * the one `npm run test-tools` compiles for Node LTS (dev/node-lts/environment.ts, whose own
 * test still builds it from source). prebuild-install loads the binary before it accepts it,
 * and when the installed version or Node has no file here, it compiles as before.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

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

/**
 * Writes, into `folder`, one prebuilt tarball for each build that has its binary, named as
 * prebuild-install names the download (`better-sqlite3-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`,
 * holding `build/Release/better_sqlite3.node`); resolves with the environment variable to set.
 */
export async function sqlitePrebuilds(folder: string, builds: readonly SqliteBuild[]): Promise<Record<string, string>> {
  mkdirSync(folder, { recursive: true });
  for (const build of builds) {
    const module = path.join(build.project, 'node_modules', 'better-sqlite3');
    if (!existsSync(path.join(module, 'build', 'Release', 'better_sqlite3.node'))) continue;
    const { version } = JSON.parse(readFileSync(path.join(module, 'package.json'), 'utf8')) as { version: string };
    const abi = (await run(build.node, ['-p', 'process.versions.modules'])).stdout.trim();
    const name = `better-sqlite3-v${version}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`;
    await run('tar', ['-czf', path.join(folder, name), '-C', module, 'build/Release/better_sqlite3.node']);
  }
  return { [LOCAL_PREBUILDS_VARIABLE]: folder };
}
