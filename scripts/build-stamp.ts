/**
 * The last step of `npm run build`: writes into dist/ a hash of the sources the build was made
 * from, so that a copy of dist/ is known to be the build of the sources as they are now (an
 * edit anywhere in them gives another hash). The package tests pack that build instead of
 * building the same sources again (test/package/packed-project.ts). dist/build-stamp.json is
 * not shipped: package.json's `files` names the folders of dist/ that are.
 *
 *   tsx scripts/build-stamp.ts   writes the stamp for this checkout's sources
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Everything `prepare` reads or `npm pack` ships, besides node_modules. */
export const PACKED_SOURCES = [
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
] as const;
/** Folders that are built or installed, never sources. */
export const NOT_SOURCES = new Set(['node_modules', 'dist']);

const STAMP = path.join('dist', 'build-stamp.json');

/** A hash of PACKED_SOURCES in `root`: their paths and contents. */
export function hashPackedSources(root: string): string {
  const hash = createHash('sha256');
  const add = (relative: string) => {
    const absolute = path.join(root, relative);
    if (!existsSync(absolute)) return;
    if (statSync(absolute).isDirectory()) {
      for (const name of readdirSync(absolute).sort()) if (!NOT_SOURCES.has(name)) add(path.join(relative, name));
      return;
    }
    hash.update(`${relative}\0`);
    hash.update(readFileSync(absolute));
  };
  for (const source of PACKED_SOURCES) add(source);
  return hash.digest('hex').slice(0, 16);
}

/** The hash of the sources `root`'s dist/ was built from, when a build finished there; undefined otherwise. */
export function builtFromSources(root: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(root, STAMP), 'utf8')) as { sources?: string }).sources;
  } catch {
    return undefined;
  }
}

if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  writeFileSync(path.join(root, STAMP), `${JSON.stringify({ sources: hashPackedSources(root) })}\n`);
}
