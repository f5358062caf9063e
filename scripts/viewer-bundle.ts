/**
 * Bundles the events viewer (src/viewer) into static files the server serves at `/`:
 * `index.html` and, under `assets/`, one script and one style sheet whose names carry a
 * hash of their content, so the server can let browsers keep them for a year while
 * `index.html` is revalidated on every visit.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';

const VIEWER_SOURCE = path.resolve(__dirname, '..', 'src', 'viewer');
/** Where `npm run build:viewer` writes and the server looks by default (src/server/viewer-assets.ts). */
export const DEFAULT_VIEWER_OUTPUT = path.resolve(__dirname, '..', 'dist', 'viewer');

export interface ViewerBundle {
  directory: string;
  script: string;
  style: string;
  /** Bytes of the script and the style sheet, as served (minified, not compressed). */
  bytes: number;
}

export async function buildViewerBundle(outputDirectory: string = DEFAULT_VIEWER_OUTPUT): Promise<ViewerBundle> {
  const assets = path.join(outputDirectory, 'assets');
  await rm(outputDirectory, { recursive: true, force: true });
  await mkdir(assets, { recursive: true });
  const result = await build({
    entryPoints: { viewer: path.join(VIEWER_SOURCE, 'main.ts'), 'viewer-style': path.join(VIEWER_SOURCE, 'styles.css') },
    outdir: assets,
    entryNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    minify: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'silent',
  });
  let script: string | undefined;
  let style: string | undefined;
  let bytes = 0;
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    bytes += output.bytes;
    if (file.endsWith('.js')) script = path.basename(file);
    if (file.endsWith('.css')) style = path.basename(file);
  }
  if (!script || !style) throw new Error(`esbuild wrote no ${script ? 'style sheet' : 'script'} for the viewer`);
  const template = await readFile(path.join(VIEWER_SOURCE, 'index.html'), 'utf8');
  await writeFile(path.join(outputDirectory, 'index.html'), template.replace('{{SCRIPT}}', script).replace('{{STYLE}}', style));
  return { directory: outputDirectory, script, style, bytes };
}
