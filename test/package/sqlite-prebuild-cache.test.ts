/**
 * The better-sqlite3 build that `npm run test-tools` leaves in npm's cache (dev/sqlite-prebuilds.ts)
 * is the file prebuild-install takes on the next install: run, as better-sqlite3's install script
 * runs it, in an install that has no binary yet, it unpacks and loads that file without going to
 * the network; asked for another Node ABI it finds no file, goes to the network and fails, which
 * makes the install script (`prebuild-install || node-gyp rebuild`) compile from source.
 * The network is a loopback proxy that counts the connections it refuses.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CHECKOUT_SQLITE, cacheSqlitePrebuild } from '../../dev/sqlite-prebuilds';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const PREBUILD_INSTALL = path.join(ROOT, 'node_modules/prebuild-install/bin.js');

let work: string;
let proxy: Server;
let proxyConnections = 0;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'sqlite-prebuild-cache-'));
  proxy = createServer((socket) => {
    proxyConnections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as { port: number };
  env = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.toLowerCase().startsWith('npm_')) env[name] = value;
  Object.assign(env, {
    npm_config_cache: path.join(work, 'npm-cache'),
    npm_config_https_proxy: `http://127.0.0.1:${port}`,
    npm_config_loglevel: 'info',
  });
});

afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

/** A better-sqlite3 folder as npm leaves it before the install script runs: the package, no build. */
function freshInstall(name: string): string {
  const folder = path.join(work, name, 'node_modules', 'better-sqlite3');
  mkdirSync(folder, { recursive: true });
  copyFileSync(path.join(ROOT, 'node_modules/better-sqlite3/package.json'), path.join(folder, 'package.json'));
  return folder;
}

async function prebuildInstall(folder: string, args: string[] = []) {
  return run(process.execPath, [PREBUILD_INSTALL, ...args], { cwd: folder, env }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
}

it("is taken from npm's cache by prebuild-install, loaded, and fetched from nowhere", async () => {
  const cached = await cacheSqlitePrebuild(CHECKOUT_SQLITE, env);
  expect(cached?.startsWith(path.join(work, 'npm-cache', '_prebuilds'))).toBe(true);
  const folder = freshInstall('same-node');
  const installed = await prebuildInstall(folder);
  expect(installed.code).toBe(0);
  expect(installed.stderr).toContain('found cached prebuild');
  expect(installed.stderr).toMatch(/required .*better_sqlite3\.node successfully/);
  expect(proxyConnections).toBe(0);
  expect(existsSync(path.join(folder, 'build/Release/better_sqlite3.node'))).toBe(true);
});

it('is not taken for another Node ABI: prebuild-install goes for the download and fails, so the install compiles', async () => {
  await cacheSqlitePrebuild(CHECKOUT_SQLITE, env);
  const folder = freshInstall('other-node');
  const installed = await prebuildInstall(folder, ['--target', '22.0.0']);
  expect(installed.code).not.toBe(0);
  expect(installed.stderr).not.toContain('found cached prebuild');
  expect(proxyConnections).toBeGreaterThan(0);
  expect(existsSync(path.join(folder, 'build/Release/better_sqlite3.node'))).toBe(false);
});
