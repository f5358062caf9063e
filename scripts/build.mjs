// `npm run build`: compiles src/ and generated/ to dist/ (JavaScript, declarations, source
// maps), then copies the generated files the compiled code reads at run time, so that
// dist/src/contract finds dist/generated/openapi.json exactly as src/contract finds
// generated/openapi.json. It also bundles express-openapi-validator, as patches/ leaves it
// in node_modules, into dist/vendor/, so that the installed package runs the validator the
// bench measured without an install script. Last, it builds the client package in
// packages/client (packages/client/README.md). A later step is one more entry in STEPS.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const require = createRequire(import.meta.url);

/** Files of generated/ that are data or plain JavaScript, which tsc does not emit. */
const GENERATED_RUNTIME_FILES = ['openapi.json', 'event-validator.js', 'event-validator.d.ts'];

/** Where the compiled server looks for the validator first (src/server/validator-module.ts). */
const VALIDATOR_BUNDLE = path.join(dist, 'vendor', 'express-openapi-validator.js');
/** A line only the patched route lookup has: a bundle of the unpatched module would measure something else. */
const VALIDATOR_PATCH_MARK = { file: 'dist/middlewares/openapi.metadata.js', text: 'function compiledRoute(' };

/**
 * Only the validator's own files are bundled, patched; each of its dependencies is
 * required at run time from the installed express-openapi-validator's own directory, so it
 * resolves exactly as the validator's files would, and a module Express shares with it
 * (qs, say) is loaded once. Inlining the dependencies too held several MiB more once the
 * validator was loaded (bench/README.md, "Measurements behind choices in the code").
 */
const VALIDATOR_REQUIRE = '__validatorRequire';

async function bundleValidator() {
  const packageDirectory = path.dirname(require.resolve('express-openapi-validator/package.json'));
  const patched = readFileSync(path.join(packageDirectory, VALIDATOR_PATCH_MARK.file), 'utf8').includes(VALIDATOR_PATCH_MARK.text);
  if (!patched)
    throw new Error('express-openapi-validator in node_modules is not patched: run `npx patch-package` (npm ci does), see patches/README.md');
  const esbuild = await import('esbuild');
  const ownFile = (importer) =>
    importer.startsWith(packageDirectory + path.sep) && !importer.slice(packageDirectory.length).includes(`${path.sep}node_modules${path.sep}`);
  await esbuild.build({
    entryPoints: [require.resolve('express-openapi-validator')],
    outfile: VALIDATOR_BUNDLE,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    banner: {
      js: `'use strict';\nconst ${VALIDATOR_REQUIRE} = require('node:module').createRequire(require.resolve('express-openapi-validator/package.json'));`,
    },
    plugins: [
      {
        name: 'dependencies-from-the-installed-validator',
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, (args) =>
            args.kind !== 'entry-point' && ownFile(args.importer) ? { path: args.path, namespace: 'validator-dependency' } : undefined,
          );
          build.onLoad({ filter: /.*/, namespace: 'validator-dependency' }, (args) => ({
            contents: `module.exports = ${VALIDATOR_REQUIRE}(${JSON.stringify(args.path)});`,
            loader: 'js',
          }));
        },
      },
    ],
    legalComments: 'eof',
    logLevel: 'warning',
  });
}

const CLIENT_PACKAGE = path.join(root, 'packages', 'client');
const CLIENT_DIST = path.join(CLIENT_PACKAGE, 'dist');
/** The main entry holds the client and the contract's types and loads nothing from the disk: the client package is it. */
const CLIENT_ENTRY = 'src/index';

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** The client package keeps the main package's version and its openapi-fetch range, so the two never drift apart. */
function checkClientManifest() {
  const main = readJson(path.join(root, 'package.json'));
  const client = readJson(path.join(CLIENT_PACKAGE, 'package.json'));
  const expected = { version: main.version, dependencies: { 'openapi-fetch': main.dependencies['openapi-fetch'] } };
  const actual = { version: client.version, dependencies: client.dependencies };
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`packages/client/package.json has ${JSON.stringify(actual)}; make it ${JSON.stringify(expected)}, as package.json has`);
  }
}

/** Copies a declaration file of dist/ and, following its relative imports, every one it needs. */
function copyDeclarations(relative, copied = new Set()) {
  if (copied.has(relative)) return;
  copied.add(relative);
  const source = path.join(dist, relative);
  const text = readFileSync(source, 'utf8');
  mkdirSync(path.dirname(path.join(CLIENT_DIST, 'types', relative)), { recursive: true });
  copyFileSync(source, path.join(CLIENT_DIST, 'types', relative));
  for (const [, specifier] of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
    const target = path.join(path.dirname(relative), specifier);
    const file = existsSync(path.join(dist, `${target}.d.ts`)) ? `${target}.d.ts` : path.join(target, 'index.d.ts');
    copyDeclarations(file, copied);
  }
}

async function buildClientPackage() {
  checkClientManifest();
  rmSync(CLIENT_DIST, { recursive: true, force: true });
  const esbuild = await import('esbuild');
  for (const [format, extension] of [
    ['esm', 'mjs'],
    ['cjs', 'cjs'],
  ]) {
    await esbuild.build({
      entryPoints: [path.join(root, `${CLIENT_ENTRY}.ts`)],
      outfile: path.join(CLIENT_DIST, `index.${extension}`),
      bundle: true,
      platform: 'neutral',
      target: 'es2022',
      format,
      external: ['openapi-fetch'],
      logLevel: 'warning',
    });
  }
  copyDeclarations(`${CLIENT_ENTRY}.d.ts`);
  copyFileSync(path.join(root, 'LICENSE'), path.join(CLIENT_PACKAGE, 'LICENSE'));
}

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
  ['bundle the patched express-openapi-validator', bundleValidator],
  ['build the client package in packages/client', buildClientPackage],
];

for (const [name, run] of STEPS) {
  try {
    await run();
  } catch (error) {
    console.error(`build: could not ${name}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
