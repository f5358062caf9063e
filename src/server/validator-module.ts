import { existsSync } from 'node:fs';
import path from 'node:path';

type ValidatorModule = typeof import('express-openapi-validator');

/**
 * express-openapi-validator as the bench measures it: with the route-matcher fix in
 * patches/. The build bundles the patched module's own files into dist/vendor/
 * (scripts/build.mjs; its dependencies come from the installed package), so the compiled
 * server, installed or in this checkout, runs that bundle and needs no install script. Run
 * from the sources (tests, tsx) it is the copy in node_modules, which patch-package patched.
 */
export function loadValidatorModule(): ValidatorModule {
  const bundled = path.join(__dirname, '../../vendor/express-openapi-validator.js');
  return require(existsSync(bundled) ? bundled : 'express-openapi-validator') as ValidatorModule;
}
