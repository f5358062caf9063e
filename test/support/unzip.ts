/**
 * A zip archive opened by Python's own zipfile module, not by our code: every entry's CRC is
 * checked, and its names (in the archive's order) and bytes are handed back.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const READ_ARCHIVE = `import base64, json, sys, zipfile
archive = zipfile.ZipFile(sys.argv[1])
assert archive.testzip() is None
print(json.dumps([[name, base64.b64encode(archive.read(name)).decode()] for name in archive.namelist()]))`;

export function unzipWithPython(archive: Buffer): Map<string, Buffer> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'unzip-'));
  try {
    const file = path.join(directory, 'archive.zip');
    writeFileSync(file, archive);
    const output = execFileSync('python3', ['-c', READ_ARCHIVE, file], { maxBuffer: 256 * 1024 * 1024 }).toString();
    return new Map((JSON.parse(output) as [string, string][]).map(([name, base64]) => [name, Buffer.from(base64, 'base64')]));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
