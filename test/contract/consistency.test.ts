/**
 * `npm run generate` refuses a contract whose own values break its own schemas, naming the JSON
 * pointer and the rule. The table runs the check (scripts/contract-consistency.mjs, the module
 * generate.mjs calls) on edited copies of openapi.yaml in one Node process; the README's half
 * edit and its whole edit then go through `node scripts/generate.mjs --check` itself, on a
 * temporary copy of just the files it reads.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseDocument } from 'yaml';
import { loadOpenApiDocument, SEARCH_PATH } from '../../src/contract';

const ROOT = path.resolve(__dirname, '..', '..');
const CHECKER = path.join(ROOT, 'scripts', 'contract-consistency.mjs');
const run = promisify(execFile);

// biome-ignore lint/suspicious/noExplicitAny: each edit reaches into a different corner of the document
type Doc = Record<string, any>;
const SEARCH_POINTER = `/paths/${SEARCH_PATH.replaceAll('/', '~1')}/get`;
const searchParameters = (d: Doc) => d['paths'][SEARCH_PATH].get.parameters as Doc[];
const limitSchema = (d: Doc) => searchParameters(d).find((parameter) => parameter['name'] === 'limit')!['schema'] as Doc;
const limitIndex = (d: Doc) => searchParameters(d).findIndex((parameter) => parameter['name'] === 'limit');

interface Want {
  pointer: string;
  rule: string;
}

const CASES: [string, (d: Doc) => void, (d: Doc) => Want][] = [
  [
    'a default above its maximum',
    (d) => (limitSchema(d)['maximum'] = 50),
    (d) => ({ pointer: `${SEARCH_POINTER}/parameters/${limitIndex(d)}/schema/default`, rule: 'maximum' }),
  ],
  [
    'a default outside its enum',
    (d) => (d['components'].schemas.EventSortOrder.default = 'SIDEWAYS'),
    () => ({ pointer: '/components/schemas/EventSortOrder/default', rule: 'enum' }),
  ],
  [
    'a default of the wrong type',
    (d) => (limitSchema(d)['default'] = 'ten'),
    (d) => ({ pointer: `${SEARCH_POINTER}/parameters/${limitIndex(d)}/schema/default`, rule: 'type' }),
  ],
  [
    'an example failing its pattern',
    (d) => Object.assign(d['components'].schemas.StoredConversation.properties.title, { pattern: '^[A-Z]', examples: ['lower case'] }),
    () => ({ pointer: '/components/schemas/StoredConversation/properties/title/examples/0', rule: 'pattern' }),
  ],
  [
    "a parameter's example its schema rejects",
    (d) => (searchParameters(d)[limitIndex(d)]!['example'] = 0),
    (d) => ({ pointer: `${SEARCH_POINTER}/parameters/${limitIndex(d)}/example`, rule: 'exclusiveMinimum' }),
  ],
  [
    'a const of another type than its schema',
    (d) => (d['components'].schemas.MessageEvent.properties.kind = { type: 'integer', const: 'MessageEvent' }),
    () => ({ pointer: '/components/schemas/MessageEvent/properties/kind/const', rule: 'type' }),
  ],
  [
    'a required property with no definition',
    (d) => d['components'].schemas.StoredConversation.required.push('owner'),
    (d) => ({
      // The unedited document: the new name is the one after its last required property.
      pointer: `/components/schemas/StoredConversation/required/${d['components'].schemas.StoredConversation.required.length}`,
      rule: 'required',
    }),
  ],
  [
    'a $ref to nothing',
    (d) => (d['components'].schemas.MessageEvent.properties.source = { $ref: '#/components/schemas/EventOrigin' }),
    () => ({ pointer: '/components/schemas/MessageEvent/properties/source/$ref', rule: '$ref' }),
  ],
];

interface Problem {
  pointer: string;
  rule: string;
  message: string;
}

/** The checker's problems for each document, from one Node process (the checker is an ES module of the build scripts). */
async function problemsOf(documents: unknown[]): Promise<Problem[][]> {
  const work = mkdtempSync(path.join(tmpdir(), 'consistency-'));
  try {
    const input = path.join(work, 'documents.json');
    writeFileSync(input, JSON.stringify(documents));
    const script = `import { readFileSync } from 'node:fs';
import { contractConsistencyProblems } from ${JSON.stringify(CHECKER)};
const documents = JSON.parse(readFileSync(${JSON.stringify(input)}, 'utf8'));
process.stdout.write(JSON.stringify(documents.map(contractConsistencyProblems)));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(stdout) as Problem[][];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

let results: Problem[][];
beforeAll(async () => {
  const edited = CASES.map(([, edit]) => {
    const document = structuredClone(loadOpenApiDocument()) as Doc;
    edit(document);
    return document;
  });
  results = await problemsOf([loadOpenApiDocument(), ...edited]);
});

it('openapi.yaml as committed agrees with itself', () => {
  expect(results[0]).toEqual([]);
});

it.each(CASES.map(([name, , want], index) => [name, want, index] as const))('%s is refused, naming the place and the rule', (_name, want, index) => {
  const expected = want(structuredClone(loadOpenApiDocument()) as Doc);
  expect(results[index + 1]).toContainEqual({ ...expected, message: expect.any(String) });
});

describe('npm run generate on the README example', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'generate-consistency-'));
    mkdirSync(path.join(work, 'scripts'));
    for (const file of ['generate.mjs', 'contract-consistency.mjs']) copyFileSync(path.join(ROOT, 'scripts', file), path.join(work, 'scripts', file));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(work, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** openapi.yaml with `limit`'s schema edited as the README says, comments and anchors kept. */
  function writeEdited(schema: Record<string, number>): void {
    const spec = parseDocument(readFileSync(path.join(ROOT, 'openapi.yaml'), 'utf8'));
    const index = limitIndex(loadOpenApiDocument() as Doc);
    for (const [keyword, value] of Object.entries(schema)) spec.setIn(['paths', SEARCH_PATH, 'get', 'parameters', index, 'schema', keyword], value);
    writeFileSync(path.join(work, 'openapi.yaml'), spec.toString());
  }

  async function generateCheck(): Promise<{ code: number; stderr: string }> {
    try {
      const { stderr } = await run(process.execPath, ['scripts/generate.mjs', '--check'], { cwd: work });
      return { code: 0, stderr };
    } catch (error) {
      const failure = error as { code: number; stderr: string };
      return { code: failure.code, stderr: failure.stderr };
    }
  }

  it('refuses the maximum lowered alone, naming the default, its pointer and the rule', async () => {
    writeEdited({ maximum: 50 });
    const { code, stderr } = await generateCheck();
    expect(code).toBe(1);
    expect(stderr).toContain('openapi.yaml is at odds with itself');
    expect(stderr).toContain(
      `#${SEARCH_POINTER}/parameters/${limitIndex(loadOpenApiDocument() as Doc)}/schema/default [maximum]: the default 100 breaks its own schema: must be <= 50 (maximum)`,
    );
    expect(stderr).not.toContain('generated/ is out of date');
  });

  it('passes the whole edit (maximum and default) on to generating', async () => {
    writeEdited({ maximum: 50, default: 50 });
    const { code, stderr } = await generateCheck();
    // No generated/ in the copy: the check gets past the self-check and finds every file to write.
    expect(code).toBe(1);
    expect(stderr).not.toContain('at odds with itself');
    expect(stderr).toContain('generated/ is out of date with openapi.yaml');
  });
});
