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
 * workers serve this checkout's dist/viewer. One process packs at a time (a lock folder
 * beside the builds); the others wait for it and reuse its tarballs.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { withFolderLock } from '../../dev/process/folder-lock';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
/** Everything `prepare` reads or `npm pack` ships, besides node_modules. */
const SOURCES = [
  'package.json',
  'package-lock.json',
  'openapi.yaml',
  'README.md',
  'LICENSE',
  'tsconfig.json',
  'tsconfig.build.json',
  'src',
  'generated',
  'scripts',
  'patches',
  'packages/client',
];
const SKIPPED = new Set(['node_modules', 'dist']);

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

function hashSources(): string {
  const hash = createHash('sha256');
  const add = (relative: string) => {
    const absolute = path.join(ROOT, relative);
    if (!existsSync(absolute)) return;
    if (statSync(absolute).isDirectory()) {
      for (const name of readdirSync(absolute).sort()) if (!SKIPPED.has(name)) add(path.join(relative, name));
      return;
    }
    hash.update(`${relative}\0`);
    hash.update(readFileSync(absolute));
  };
  for (const source of SOURCES) add(source);
  return hash.digest('hex').slice(0, 16);
}

async function pack(directory: string, destination: string): Promise<{ filename: string; files: { path: string }[] }> {
  const packed = await run('npm', ['pack', '--json', '--pack-destination', destination, directory], {
    cwd: directory,
    env: withoutNpmSettings(),
    maxBuffer: 64 * 1024 * 1024,
  });
  return (JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string; files: { path: string }[] }])[0];
}

/** A copy of what `prepare` reads and `npm pack` ships, with this checkout's node_modules linked into it. */
function copySources(into: string): string {
  const project = path.join(into, 'project');
  for (const source of SOURCES) {
    const from = path.join(ROOT, source);
    if (existsSync(from))
      cpSync(from, path.join(project, source), { recursive: true, filter: (file) => !SKIPPED.has(path.basename(file)) || file === from });
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  return project;
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
  const folder = path.join(ROOT, '.cache', 'packed', hashSources());
  const manifest = path.join(folder, 'tarballs.json');
  mkdirSync(path.dirname(folder), { recursive: true });
  if (!existsSync(manifest))
    await withFolderLock(`${folder}.lock`, async () => {
      if (existsSync(manifest)) return;
      const scratch = mkdtempSync(`${folder}.packing-`);
      try {
        const project = copySources(scratch);
        const main = await pack(project, scratch);
        const client = await pack(path.join(project, 'packages/client'), scratch);
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
