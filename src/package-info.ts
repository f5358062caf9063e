/**
 * Where this package lives and which version it is, the same whether the code runs from
 * src/ under tsx, from dist/src/ in the checkout, or from an installed copy in node_modules:
 * the server reads its assets and its version from here, the bins their `--version`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const PACKAGE_NAME = 'agent-server-contract';

let cachedRoot: string | undefined;

/** The nearest folder above this module whose package.json names this package. */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  for (let folder = __dirname; ; folder = path.dirname(folder)) {
    const manifest = path.join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME) {
      cachedRoot = folder;
      return folder;
    }
    if (path.dirname(folder) === folder) throw new Error(`No package.json of ${PACKAGE_NAME} above ${__dirname}.`);
  }
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
