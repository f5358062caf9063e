// `npm run build`: compiles src/ and generated/ to dist/ (JavaScript, declarations, source
// maps), then copies the generated files the compiled code reads at run time, so that
// dist/src/contract finds dist/generated/openapi.json exactly as src/contract finds
// generated/openapi.json. A later step (a browser bundle, say) is one more entry in STEPS.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const require = createRequire(import.meta.url);

/** Files of generated/ that are data or plain JavaScript, which tsc does not emit. */
const GENERATED_RUNTIME_FILES = ['openapi.json', 'event-validator.js', 'event-validator.d.ts'];

const STEPS = [
  ['remove the previous dist/', () => rmSync(dist, { recursive: true, force: true })],
  [
    'compile with tsconfig.build.json',
    () => execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' }),
  ],
  [
    'copy the generated run-time files',
    () => {
      mkdirSync(path.join(dist, 'generated'), { recursive: true });
      for (const file of GENERATED_RUNTIME_FILES) copyFileSync(path.join(root, 'generated', file), path.join(dist, 'generated', file));
    },
  ],
];

for (const [name, run] of STEPS) {
  try {
    run();
  } catch (error) {
    console.error(`build: could not ${name}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
