/**
 * A zip archive opened by Python's own zipfile module, not by our code: every entry's CRC is
 * checked, and its names (in the archive's order) and bytes are handed back. Python runs
 * while the test's event loop goes on: a test blocked on it for seconds kept a keep-alive
 * connection its server had meanwhile closed, and its next request failed ("other side closed").
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const READ_ARCHIVE = `import base64, json, sys, zipfile
archive = zipfile.ZipFile(sys.argv[1])
assert archive.testzip() is None
print(json.dumps([[name, base64.b64encode(archive.read(name)).decode()] for name in archive.namelist()]))`;

export async function unzipWithPython(archive: Buffer): Promise<Map<string, Buffer>> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'unzip-'));
  try {
    const file = path.join(directory, 'archive.zip');
    writeFileSync(file, archive);
    const { stdout: output } = await promisify(execFile)('python3', ['-c', READ_ARCHIVE, file], { maxBuffer: 256 * 1024 * 1024 });
    return new Map((JSON.parse(output) as [string, string][]).map(([name, base64]) => [name, Buffer.from(base64, 'base64')]));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
