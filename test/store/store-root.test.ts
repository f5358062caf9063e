import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StoreRootError, checkConversationsRoot } from '../../src/store';

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'store-root-test-'));
  writeFileSync(path.join(scratch, 'a-file'), '');
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('checkConversationsRoot', () => {
  it('accepts a readable directory', async () => {
    expect(await checkConversationsRoot(scratch)).toBeUndefined();
  });

  it.each([
    ['a missing path', 'missing', 'missing', 'does not exist. Create it, or pass the path of an existing one.'],
    ['a file', 'a-file', 'not-a-directory', 'is not a directory. Pass the directory that holds one sub-directory per conversation.'],
    ['a path below a file', 'a-file/below', 'missing', 'does not exist.'],
  ])('returns an error value for %s', async (_name, relative, problem, remedy) => {
    const root = path.join(scratch, relative);

    const error = await checkConversationsRoot(root);

    expect(error).toBeInstanceOf(StoreRootError);
    expect(error).toMatchObject({ problem, root });
    expect(error!.message).toContain(root);
    expect(error!.message).toContain(remedy);
  });
});
