/**
 * The package as users get it, measured beside this checkout's server in the same run: the
 * tarball `npm pack` makes of the checkout (the build `npm run bench` has just made) is
 * installed into a project of its own under the bench's data directory, and the installed
 * server and the checkout's take turns on the same conversation (builds-side-by-side.ts),
 * so that every figure can be given as installed / checkout: the same within noise when the
 * package ships what the bench measures (the bundled, patched validator above all; see
 * patches/README.md).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { measureBuildsSideBySide } from './builds-side-by-side';
import type { Dataset } from './datasets';
import type { OurServerOptions } from './server-process';
import type { LoadShape, ServerLoadFigures } from './side-by-side';

const run = promisify(execFile);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const PACKAGE_NAME = 'agent-server-contract';

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
  const figures = await measureBuildsSideBySide(
    dataset,
    { otherRoot: packageDirectory, otherLabel: 'installed', server: options.server, rotatingPage: false },
    shape,
    progress,
  );
  return { tarballBytes, rounds: figures.rounds.map((round) => ({ checkout: round.checkout.firstPage, installed: round.other.firstPage })) };
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

/** `npm run bench` hands its settings down in npm_* variables; the user's npm (or another build's) must not inherit them. */
export function npmEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
}
