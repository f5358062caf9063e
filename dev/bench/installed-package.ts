/**
 * The package as users get it, measured beside this checkout's server in the same run: the
 * tarball `npm pack` makes of the checkout (the build `npm run bench` has just made) is
 * installed into a project of its own under the bench's data directory, and the installed
 * server and the checkout's are started alike, fresh, on the same conversation. Their first
 * page is then loaded in turns, so that both see the same machine state, and every figure
 * can be given as installed / checkout: the same within noise when the package ships what
 * the bench measures (the bundled, patched validator above all; see patches/README.md).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Dataset } from './datasets';
import { getOk } from './http-get';
import { searchPath } from './scenarios';
import { type OurServerOptions, type ServerProcess, spawnOurServer, waitUntilAnswering } from './server-process';
import { type LoadShape, type ServerLoadFigures, measure } from './side-by-side';

const run = promisify(execFile);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const PACKAGE_NAME = 'agent-server-contract';
/**
 * Rounds of one measurement each, the order swapped every round (checkout first, then
 * installed first, ...), so that neither always runs right after the other: on a shared
 * machine a disturbance in one round shows as a disagreement between rounds.
 */
const ROUNDS = 3;

export interface InstalledPackageFigures {
  readonly tarballBytes: number;
  /** One entry per round; odd rounds measured the checkout first, even ones the installed package first. */
  readonly rounds: readonly { readonly checkout: ServerLoadFigures; readonly installed: ServerLoadFigures }[];
}

export interface InstalledPackageOptions {
  readonly repoRoot: string;
  /** The installed project goes under here, replaced on every run. */
  readonly dataDirectory: string;
  readonly server: (label: string) => Omit<OurServerOptions, 'validateResponses'>;
}

export async function measureInstalledPackage(
  dataset: Dataset,
  options: InstalledPackageOptions,
  shape: LoadShape,
  progress: (line: string) => void,
): Promise<InstalledPackageFigures> {
  progress('installed package: npm pack and npm install');
  const { packageDirectory, tarballBytes } = await installPackedCheckout(options.repoRoot, path.join(options.dataDirectory, 'installed-package'));
  const firstPage = searchPath(dataset.conversationIdHex, { limit: '100' });
  const label = dataset.spec.label;
  const servers: ServerProcess[] = [];
  try {
    const checkout = await startAndOpen(
      spawnOurServer(`checkout-${label}`, { ...options.server(`checkout-${label}`), validateResponses: false }),
      firstPage,
    );
    servers.push(checkout);
    const installed = await startAndOpen(
      spawnOurServer(`installed-${label}`, { ...options.server(`installed-${label}`), repoRoot: packageDirectory, validateResponses: false }),
      firstPage,
    );
    servers.push(installed);
    const rounds = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const checkoutFirst = round % 2 === 1;
      progress(`  ${label} first page, ${checkoutFirst ? 'checkout then installed' : 'installed then checkout'}, round ${round} of ${ROUNDS}`);
      if (checkoutFirst) {
        const checkoutFigures = await measure(checkout, [firstPage], shape);
        rounds.push({ checkout: checkoutFigures, installed: await measure(installed, [firstPage], shape) });
      } else {
        const installedFigures = await measure(installed, [firstPage], shape);
        rounds.push({ checkout: await measure(checkout, [firstPage], shape), installed: installedFigures });
      }
    }
    return { tarballBytes, rounds };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

async function startAndOpen(starting: Promise<ServerProcess>, firstPage: string): Promise<ServerProcess> {
  const server = await starting;
  try {
    await waitUntilAnswering(server);
    await getOk(server.baseUrl + firstPage);
    return server;
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/**
 * `npm pack` without its scripts (the bench's own build is what gets packed), then
 * `npm install` of the tarball into an empty project, as the README tells users.
 */
async function installPackedCheckout(repoRoot: string, directory: string): Promise<{ packageDirectory: string; tarballBytes: number }> {
  rmSync(directory, { recursive: true, force: true });
  const project = path.join(directory, 'project');
  mkdirSync(project, { recursive: true });
  const env = npmEnvironment();
  const packed = await run(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', directory], {
    cwd: repoRoot,
    env,
    maxBuffer: 64 * 2 ** 20,
  });
  const [report] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string; size: number }];
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'bench-installed-package', version: '1.0.0', private: true }));
  await run(NPM, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', path.join(directory, report.filename)], {
    cwd: project,
    env,
    maxBuffer: 64 * 2 ** 20,
  });
  return { packageDirectory: path.join(project, 'node_modules', PACKAGE_NAME), tarballBytes: report.size };
}

/** `npm run bench` hands its settings down in npm_* variables; the user's npm would not have them. */
function npmEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
}
