import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REFERENCE_VERSION } from '../../dev/python/toolsets';
import { startReferenceServer } from '../../dev/reference/reference-server';

test('the pinned reference starts on loopback, says its version, and is gone after stop', async () => {
  const conversations = mkdtempSync(path.join(os.tmpdir(), 'reference-conversations-'));
  const reference = await startReferenceServer({ conversationsPath: conversations });
  try {
    const info = (await (await fetch(`${reference.url}/server_info`)).json()) as { version: string; sdk_version: string };
    expect(info.version).toBe(REFERENCE_VERSION);
    expect(info.sdk_version).toBe(REFERENCE_VERSION);
    const search = await fetch(`${reference.url}/api/conversations/search`);
    expect(search.status).toBe(200);
    expect(await search.json()).toEqual({ items: [], next_page_id: null });
  } finally {
    await reference.stop();
    rmSync(conversations, { recursive: true, force: true });
  }
  await expect(fetch(`${reference.url}/alive`)).rejects.toThrow();
});
