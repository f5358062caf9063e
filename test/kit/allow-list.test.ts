import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readAllowList } from '../../src/kit/run/allow-list';

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'allow-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function read(name: string, content: string) {
  const file = path.join(directory, name);
  writeFileSync(file, content);
  return readAllowList(file);
}

it('reads a YAML list of {id, reason}', () => {
  expect(read('a.yaml', '- id: ref.errors.limit-exponent\n  reason: stricter on purpose\n')).toEqual({
    ok: true,
    entries: [{ id: 'ref.errors.limit-exponent', reason: 'stricter on purpose' }],
  });
});

it('reads the same as JSON', () => {
  expect(read('a.json', '[{"id": "paging.full-pages", "reason": "pages may be short"}]')).toEqual({
    ok: true,
    entries: [{ id: 'paging.full-pages', reason: 'pages may be short' }],
  });
});

it('an empty file allows nothing', () => {
  expect(read('empty.yaml', '')).toEqual({ ok: true, entries: [] });
});

it.each([
  ['a reason is required', '- id: paging.full-pages\n', 'entry 1 of', '(paging.full-pages) has no reason'],
  ['an id is required', '- reason: because\n', 'entry 1 of', 'has no check id'],
  ['a list is required', 'paging.full-pages: because\n', 'must be a list of {id, reason}', '- id: ref.errors.limit-exponent'],
  ['YAML must parse', '- id: [\n', 'is neither JSON nor YAML', ''],
])('%s', (_name, content, first, second) => {
  const read1 = read('bad.yaml', content);
  expect(read1.ok).toBe(false);
  if (read1.ok) return;
  expect(read1.message).toContain(first);
  expect(read1.message).toContain(second);
});

it('a missing file says which', () => {
  const result = readAllowList(path.join(directory, 'nope.yaml'));
  expect(result).toEqual({ ok: false, message: expect.stringContaining(`cannot read the allow file ${path.join(directory, 'nope.yaml')}`) });
});
