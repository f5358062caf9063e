/**
 * The tarballs the package tests install, packed once for each state of the sources: the
 * installed-package test (Node 20) and the Node LTS test install the same build, so the
 * second one reuses it instead of building the project again. `npm pack` runs `prepare`,
 * which builds the current sources, and the client package is packed from that build. They
 * are kept under `.cache/packed/<hash of the packed sources>` (ignored by git): an edit
 * anywhere in what is packed gives a new hash, so a stale build is never installed; packing
 * anew removes the builds of earlier sources.
 *
 * The build runs in a copy of the sources (node_modules linked), never in this checkout:
 * `prepare` removes and rewrites dist/, and the tests that run beside this one in other jest
 * workers serve this checkout's dist/viewer. When this checkout's dist/ is already the build of
 * the same sources (its stamp, scripts/build-stamp.ts, names their hash: `npm ci` ran `prepare`
 * here), that build is copied in and packed as it is, rather than made a second time. One
 * process packs at a time (a lock folder beside the builds); the others wait for it and reuse
 * its tarballs.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { withFolderLock } from '../../dev/process/folder-lock';
import { builtFromSources, hashPackedSources, NOT_SOURCES, PACKED_SOURCES } from '../../scripts/build-stamp';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
/** What the build writes, besides dist/ itself: the client package's own build. */
const CLIENT_DIST = 'packages/client/dist';

export interface PackedProject {
  /** The agent-server-contract tarball. */
  readonly tarball: string;
  /** The agent-server-contract-client tarball. */
  readonly clientTarball: string;
  /** The paths inside the main tarball, as `npm pack` reported them. */
  readonly files: readonly string[];
}

/** npm run by `npm test` hands its own settings down in npm_* variables; the packing npm must not inherit them. */
function withoutNpmSettings(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.toLowerCase().startsWith('npm_')) env[name] = value;
  return env;
}

/** `npm pack` of `directory`; with `built`, its build is already in place and `prepare` is not run again. */
async function pack(directory: string, destination: string, built: boolean): Promise<{ filename: string; files: { path: string }[] }> {
  const packed = await run('npm', ['pack', '--json', '--pack-destination', destination, ...(built ? ['--ignore-scripts'] : []), directory], {
    cwd: directory,
    env: withoutNpmSettings(),
    maxBuffer: 64 * 1024 * 1024,
  });
  return (JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string; files: { path: string }[] }])[0];
}

/** A copy of what `prepare` reads and `npm pack` ships, with this checkout's node_modules linked into it. */
function copySources(into: string): string {
  const project = path.join(into, 'project');
  for (const source of PACKED_SOURCES) {
    const from = path.join(ROOT, source);
    if (existsSync(from))
      cpSync(from, path.join(project, source), { recursive: true, filter: (file) => !NOT_SOURCES.has(path.basename(file)) || file === from });
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  return project;
}

/** This checkout's build of `sources` (its dist/ and the client package's), copied into `project`; false when dist/ was built from other sources or not at all. */
function copyBuild(project: string, sources: string): boolean {
  if (builtFromSources(ROOT) !== sources || !existsSync(path.join(ROOT, CLIENT_DIST))) return false;
  for (const built of ['dist', CLIENT_DIST]) cpSync(path.join(ROOT, built), path.join(project, built), { recursive: true });
  // Copied while nothing rebuilt dist/ here meanwhile: the stamp still names these sources.
  return builtFromSources(ROOT) === sources;
}

/**
 * `npm install` of `packages` in `cwd`, as the package tests install the tarballs: registry
 * packages come from npm's cache when it has them, unchecked (`--prefer-offline`), since a
 * version the lock pins does not change; `env` is the whole environment of the install.
 */
export async function installPackages(cwd: string, packages: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...packages], {
    cwd,
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** The two tarballs for the sources as they are now, packed by the first caller and reused by the rest. */
export async function packedProject(): Promise<PackedProject> {
  const sources = hashPackedSources(ROOT);
  const folder = path.join(ROOT, '.cache', 'packed', sources);
  const manifest = path.join(folder, 'tarballs.json');
  mkdirSync(path.dirname(folder), { recursive: true });
  if (!existsSync(manifest))
    await withFolderLock(`${folder}.lock`, async () => {
      if (existsSync(manifest)) return;
      const scratch = mkdtempSync(`${folder}.packing-`);
      try {
        const project = copySources(scratch);
        const built = copyBuild(project, sources);
        const main = await pack(project, scratch, built);
        const client = await pack(path.join(project, 'packages/client'), scratch, built);
        const names = { tarball: main.filename, clientTarball: client.filename, files: main.files.map((file) => file.path) };
        writeFileSync(path.join(scratch, 'tarballs.json'), JSON.stringify(names));
        rmSync(project, { recursive: true, force: true });
        if (!existsSync(folder)) renameSync(scratch, folder);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
      // Builds of earlier sources are never installed again; only scratch folders still being packed, and locks, are left alone.
      const packed = path.dirname(folder);
      for (const name of readdirSync(packed))
        if (name !== path.basename(folder) && !name.includes('.packing-') && !name.endsWith('.lock'))
          rmSync(path.join(packed, name), { recursive: true, force: true });
    });
  const names = JSON.parse(readFileSync(manifest, 'utf8')) as { tarball: string; clientTarball: string; files: string[] };
  return { tarball: path.join(folder, names.tarball), clientTarball: path.join(folder, names.clientTarball), files: names.files };
}
