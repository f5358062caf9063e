import { emptyStoredEventCounts } from '../../src/store/stored-event/counts';
import { UnservedFiles } from '../../src/store/directory/memory/unserved-files';

describe('UnservedFiles', () => {
  it('says whether a file is new for its kind of reason, so each is reported once', () => {
    const unserved = new UnservedFiles();

    expect(unserved.remember('a.json', { because: 'broken', reason: 'not valid JSON' })).toBe(true);
    expect(unserved.remember('a.json', { because: 'broken', reason: 'empty file' })).toBe(false);
    expect(unserved.remember('a.json', { because: 'unknown-kind', reason: 'HookEvent' })).toBe(true);
    expect(unserved.remember('a.json', { because: 'unknown-value', reason: 'source: hook' })).toBe(false);
    expect([unserved.brokenCount, unserved.unknownCount]).toEqual([0, 1]);
  });

  it('retries broken files and not files of an unknown kind or value', () => {
    const unserved = new UnservedFiles();
    unserved.remember('half-written.json', { because: 'broken', reason: 'not valid JSON' });
    unserved.remember('newer.json', { because: 'unknown-kind', reason: 'HookEvent' });

    expect(unserved.brokenNames()).toEqual(['half-written.json']);
    expect(unserved.isUnknown('newer.json')).toBe(true);
    expect(unserved.isUnknown('half-written.json')).toBe(false);
  });

  it('tells, when a file is forgotten, whether it was broken (so its serving is logged)', () => {
    const unserved = new UnservedFiles();
    unserved.remember('a.json', { because: 'broken', reason: 'not valid JSON' });
    unserved.remember('b.json', { because: 'unknown-value', reason: 'source: hook' });

    expect(unserved.forget('a.json')).toBe(true);
    expect(unserved.forget('b.json')).toBe(false);
    expect([unserved.brokenCount, unserved.unknownCount]).toEqual([0, 0]);
  });

  it('forgets the files a listing no longer has, of either kind', () => {
    const unserved = new UnservedFiles();
    for (const name of ['a.json', 'b.json']) unserved.remember(name, { because: 'broken', reason: 'empty file' });
    for (const name of ['c.json', 'd.json']) unserved.remember(name, { because: 'unknown-kind', reason: 'HookEvent' });

    unserved.forgetAllBut(['b.json', 'd.json', 'other.json'], 1);

    expect(unserved.brokenNames()).toEqual(['b.json']);
    expect(unserved.isUnknown('c.json')).toBe(false);
    expect(unserved.isUnknown('d.json')).toBe(true);
  });

  it('counts what is not served for /health: unknown kinds and values by reason, broken files', () => {
    const unserved = new UnservedFiles();
    unserved.remember('a.json', { because: 'unknown-kind', reason: 'HookEvent' });
    unserved.remember('b.json', { because: 'unknown-kind', reason: 'HookEvent' });
    unserved.remember('c.json', { because: 'unknown-value', reason: 'source: hook' });
    unserved.remember('d.json', { because: 'broken', reason: 'empty file' });
    const counts = emptyStoredEventCounts('contract');

    unserved.countInto(counts);

    expect({ ...counts.notServedByKind }).toEqual({ HookEvent: 2 });
    expect({ ...counts.notServedByValue }).toEqual({ 'source: hook': 1 });
    expect(counts.brokenFiles).toBe(1);
  });
});
