import { parseEventFileName } from '../../src/store/directory/load/event-file-name';
import { ServedFiles } from '../../src/store/directory/memory/served-files';

const file = (name: string) => parseEventFileName(name)!;

describe('ServedFiles', () => {
  it('tells the file serving a position from another file claiming the same index', () => {
    const served = new ServedFiles();
    served.serve(file('event-00001-aaaa.json'));

    expect(served.isServing(file('event-00001-aaaa.json'))).toBe(true);
    expect(served.isTakenByAnother(file('event-00001-aaaa.json'))).toBe(false);
    expect(served.isTakenByAnother(file('event-00001-bbbb.json'))).toBe(true);
    expect(served.isTakenByAnother(file('event-000001-aaaa.json'))).toBe(true);
    expect(served.isTakenByAnother(file('event-00002-aaaa.json'))).toBe(false);
  });

  it('unserves a position only for the file serving it', () => {
    const served = new ServedFiles();
    served.serve(file('event-00001-aaaa.json'));

    expect(served.unserve(file('event-00001-bbbb.json'))).toBe(false);
    expect(served.unserve(file('event-00001-aaaa.json'))).toBe(true);
    expect(served.isServing(file('event-00001-aaaa.json'))).toBe(false);
  });

  it('lists the served positions whose files are no longer listed', () => {
    const served = new ServedFiles();
    for (const name of ['event-00000-a.json', 'event-00001-b.json', 'event-00002-c.json']) served.serve(file(name));

    const listed = ['event-00000-a.json', 'event-00001-other.json', 'event-00003-d.json'].map(file);

    expect(served.positionsMissingFrom(listed)).toEqual([1, 2]);
  });
});

describe('ServedFiles over many and far-apart positions', () => {
  it('keeps count and answers alike for positions in the dense range, beyond its first size, and far out', () => {
    const served = new ServedFiles();
    const positions = [0, 1, 1023, 1024, 5000, 200_000, 1_048_575, 1_048_576, 99_999_999_999];
    for (const position of positions) served.serve(file(`event-${String(position).padStart(5, '0')}-a.json`));

    expect(served.size).toBe(positions.length);
    for (const position of positions) {
      const name = `event-${String(position).padStart(5, '0')}`;
      expect(served.isServing(file(`${name}-a.json`))).toBe(true);
      expect(served.isTakenByAnother(file(`${name}-b.json`))).toBe(true);
    }
    expect(served.positionsMissingFrom([file('event-05000-a.json')])).toEqual(positions.filter((position) => position !== 5000));

    served.unservePosition(1_048_576);
    served.unservePosition(1024);
    served.unservePosition(1024);
    expect(served.size).toBe(positions.length - 2);
    expect(served.isTakenByAnother(file('event-01024-b.json'))).toBe(false);
  });

  it('counts a file served again at its position once', () => {
    const served = new ServedFiles();
    served.serve(file('event-00007-a.json'));
    served.serve(file('event-00007-a.json'));

    expect(served.size).toBe(1);
  });
});
