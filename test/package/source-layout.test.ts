import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The tree by role: src/ is the product that ships, dev/ what only development runs. These
 * read every import of src/ and hold the rules a move or a new file could break unnoticed,
 * since the compiler accepts any relative import.
 */
const ROOT = path.resolve(__dirname, '../..');
const SRC = path.join(ROOT, 'src');

interface Import {
  /** Relative to src/, with forward slashes. */
  readonly file: string;
  /** What the import resolves to, relative to the project root. */
  readonly target: string;
}

function importsOfSrc(): Import[] {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  return files.flatMap((file) => {
    const text = readFileSync(path.join(SRC, file), 'utf8');
    return [...text.matchAll(/(?:from|import\(|require\()\s*'(\.{1,2}\/[^']*)'/g)].map((match) => ({
      file: file.split(path.sep).join('/'),
      target: path
        .relative(ROOT, path.resolve(SRC, path.dirname(file), match[1]!))
        .split(path.sep)
        .join('/'),
    }));
  });
}

const imports = importsOfSrc();

it('reads enough of src/ to mean something', () => {
  expect(imports.length).toBeGreaterThan(500);
  expect(imports.some((entry) => entry.target === 'src/contract')).toBe(true);
});

it('ships nothing that imports development code (dev/) or the tests', () => {
  const offenders = imports.filter((entry) => /^(dev|test|scripts)(\/|$)/.test(entry.target));
  expect(offenders).toEqual([]);
});

it('keeps the library apart from the command lines: only src/cli imports from src/cli', () => {
  const offenders = imports.filter((entry) => entry.target.startsWith('src/cli/') && !entry.file.startsWith('cli/'));
  expect(offenders).toEqual([]);
});

/** A path to the generated document or to openapi.yaml written as a string: a read of the file, not a mention of it in a message. */
const READS_THE_DOCUMENT = /['"`](?:\.{1,2}\/)*generated(?:\/openapi\.json)?['"`]|['"`](?:\.{1,2}\/)+openapi\.(?:yaml|json)['"`]/;

it('reads the generated contract only through src/contract', () => {
  const offenders = imports.filter((entry) => entry.target.startsWith('generated/') && !entry.file.startsWith('contract/'));
  expect(offenders).toEqual([]);
  const outsideContract = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.startsWith(`contract${path.sep}`))
    .filter((file) => READS_THE_DOCUMENT.test(readFileSync(path.join(SRC, file), 'utf8')));
  expect(outsideContract).toEqual([]);
});
