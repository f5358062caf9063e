import { parseEventFileName } from '../../src/store/event-file-name';
import { ServedFiles } from '../../src/store/served-files';

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
