import type { ConversationFile } from '../../src/catalog';
import { trajectoryArchive } from '../../src/catalog/trajectory-archive';
import { KnownSecrets } from '../../src/secrets';
import { loadOpenApiDocument } from '../../src/contract';
import { type Exchange, KIT_READ_LIMITS } from '../../src/kit/http';
import { describeDifference, firstDifference, setValuedProperties } from '../../src/kit/run/compare';

describe('--compare: what counts as a difference', () => {
  const setValued = setValuedProperties(loadOpenApiDocument());

  it('reads the set-valued properties from the contract (uniqueItems arrays)', () => {
    expect([...setValued]).toContain('forgotten_event_ids');
  });

  it('ignores the order of a set, and still reports a different member or a missing one', () => {
    const stored = { items: [{ kind: 'Condensation', forgotten_event_ids: ['a', 'b', 'c'] }] };
    const reordered = { items: [{ kind: 'Condensation', forgotten_event_ids: ['c', 'a', 'b'] }] };
    expect(firstDifference(stored, reordered, '$', setValued)).toBeUndefined();
    expect(firstDifference(stored, { items: [{ kind: 'Condensation', forgotten_event_ids: ['c', 'a', 'x'] }] }, '$', setValued)).toBe(
      '$.items[0].forgotten_event_ids[1]: "b" vs "c"',
    );
    expect(firstDifference(stored, { items: [{ kind: 'Condensation', forgotten_event_ids: ['a', 'b'] }] }, '$', setValued)).toBe(
      '$.items[0].forgotten_event_ids: 3 items vs 2',
    );
  });

  it('keeps the order of every other array', () => {
    expect(firstDifference({ items: ['a', 'b'] }, { items: ['b', 'a'] }, '$', setValued)).toBe('$.items[0]: "a" vs "b"');
    expect(firstDifference({ forgotten_event_ids: ['a', 'b'] }, { forgotten_event_ids: ['b', 'a'] }, '$')).toBe(
      '$.forgotten_event_ids[0]: "a" vs "b"',
    );
  });
});

// Two servers' trajectory archives are the same when they hold the same entries with the same
// bytes, whatever their times and compression; an entry missing, added or different is named.
describe('--compare: file responses', () => {
  const HEX = '0123456789abcdef0123456789abcdef';

  function file(relativePath: string, text: string, modifiedAt: Date): ConversationFile {
    return { relativePath, modifiedAt, size: Buffer.byteLength(text), read: async () => Buffer.from(text) };
  }

  async function archiveExchange(files: ConversationFile[]): Promise<Exchange> {
    const chunks: Buffer[] = [];
    for await (const chunk of trajectoryArchive(HEX, files, KnownSecrets.NONE)) chunks.push(chunk);
    const bodyBytes = Buffer.concat(chunks);
    const bodyText = bodyBytes.toString('utf8');
    return {
      seq: 1,
      method: 'GET',
      checkId: 'operations.downloadTrajectory.valid',
      path: `/api/file/download-trajectory/${HEX}`,
      url: `http://127.0.0.1/api/file/download-trajectory/${HEX}`,
      status: 200,
      contentType: 'application/octet-stream',
      bodyText,
      bodyLength: bodyText.length,
      bodyBytes,
      json: { ok: false, error: 'not JSON' },
      durationMs: 1,
    };
  }

  const EARLY = new Date(2026, 0, 1, 10, 0, 0);
  const LATE = new Date(2026, 5, 1, 18, 30, 0);

  it('archives with the same entries and bytes are the same, whatever their times', async () => {
    const first = await archiveExchange([file('events/', '', EARLY), file('events/event-00000-a.json', '{"id":"a"}', EARLY)]);
    const second = await archiveExchange([file('events/', '', LATE), file('events/event-00000-a.json', '{"id":"a"}', LATE)]);
    expect(first.bodyBytes!.equals(second.bodyBytes!)).toBe(false);
    expect(describeDifference(first, second)).toBeUndefined();
  });

  it('an entry missing, or with other bytes, is a difference naming it', async () => {
    const both = [file('meta.json', '{"title":"one"}', EARLY)];
    const first = await archiveExchange([...both, file('notes.txt', 'kept here', EARLY)]);
    const fewer = await archiveExchange(both);
    const other = await archiveExchange([...both, file('notes.txt', 'kept there', EARLY)]);
    expect(describeDifference(first, fewer)).toBe(`archives hold different entries: ${HEX}/notes.txt vs (none) at entry 2 (3 vs 2 entries)`);
    expect(describeDifference(first, other)).toBe(`archive entry ${HEX}/notes.txt differs (9 vs 10 bytes)`);
  });

  it('archives that together inflate past the cap are not compared, and say so', async () => {
    // Zeros deflate a thousandfold: each archive is small on the wire and inflates past the kit's total.
    const entrySize = Math.ceil(KIT_READ_LIMITS.inflatedArchiveBytes / 3) + 1;
    const bomb = (name: string): ConversationFile => ({
      relativePath: name,
      modifiedAt: EARLY,
      size: entrySize,
      read: async () => Buffer.alloc(entrySize),
    });
    const first = await archiveExchange([bomb('a.bin'), bomb('b.bin'), bomb('c.bin')]);
    expect(first.bodyBytes!.length).toBeLessThan(KIT_READ_LIMITS.inflatedArchiveBytes / 100);
    expect(describeDifference(first, { ...first })).toBe(
      `here, the archive inflates past what the kit reads (${KIT_READ_LIMITS.inflatedArchiveBytes} bytes, all entries together); it was not compared`,
    );
  });

  it('files that are not archives are compared byte for byte', async () => {
    const first = await archiveExchange([]);
    const broken = { ...first, bodyBytes: Buffer.from('PK not an archive') };
    expect(describeDifference(first, broken)).toMatch(/^files differ \(\d+ vs 17 bytes\)$/);
    expect(describeDifference(broken, { ...broken })).toBeUndefined();
  });
});
