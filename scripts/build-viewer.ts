/** `npm run build:viewer`: writes the events viewer's static files into dist/viewer (scripts/viewer-bundle.ts). */
import path from 'node:path';
import { buildViewerBundle } from './viewer-bundle';

buildViewerBundle().then(
  (bundle) => {
    process.stdout.write(
      `viewer: ${path.relative(process.cwd(), bundle.directory)} (${bundle.script}, ${bundle.style}; ${Math.round(bundle.bytes / 1024)} KiB)\n`,
    );
  },
  (error: unknown) => {
    process.stderr.write(`viewer build failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
