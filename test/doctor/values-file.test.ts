import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readValuesFile, type ValuesReading } from '../../src/doctor/values-file';

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'doctor-values-file-'));
  await mkdir(join(workDir, 'a-directory'));
});
afterAll(() => rm(workDir, { recursive: true, force: true }));

async function readText(name: string, text: string): Promise<ValuesReading> {
  const file = join(workDir, name);
  await writeFile(file, text);
  return readValuesFile(file);
}

describe('readValuesFile', () => {
  const cases: Array<[string, { given: string; want: ValuesReading | string }]> = [
    ['reads a mapping', { given: 'ingress:\n  host: app.acme.dev\n', want: { ok: true, values: { ingress: { host: 'app.acme.dev' } } } }],
    ['treats an empty file as no values, as Helm does', { given: '', want: { ok: true, values: {} } }],
    [
      "rejects broken YAML with the parser's reason",
      { given: 'ingress: [\n', want: 'is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]' },
    ],
    ['rejects duplicate keys', { given: 'a: 1\na: 2\n', want: 'is not valid YAML: Map keys must be unique' }],
    [
      'rejects plain text, which parses as a string',
      { given: 'this is not a values file', want: 'is not a YAML mapping of chart values (it holds a string)' },
    ],
    ['rejects a list', { given: '- a\n- b\n', want: 'is not a YAML mapping of chart values (it holds a list)' }],
  ];
  test.each(cases)('%s', async (name, { given, want }) => {
    const reading = await readText(`${name.replace(/\W+/g, '-')}.yaml`, given);
    if (typeof want === 'string') {
      expect(reading.ok).toBe(false);
      expect(!reading.ok && reading.error).toContain(want);
    } else {
      expect(reading).toEqual(want);
    }
  });

  test('a missing file says so and names the flag', async () => {
    const file = join(workDir, 'nope.yaml');
    expect(await readValuesFile(file)).toEqual({
      ok: false,
      error: `values file ${file} does not exist. Pass the path of your Helm values file with --values.`,
    });
  });

  test('a directory is refused', async () => {
    const dir = join(workDir, 'a-directory');
    expect(await readValuesFile(dir)).toEqual({
      ok: false,
      error: `values file ${dir} is a directory. Pass the path of a Helm values file with --values.`,
    });
  });
});
