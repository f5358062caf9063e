import { parseEventFileName } from '../../src/store/files/event-file-name';

describe('parseEventFileName', () => {
  it.each([
    ['event-00000-0b573a33-df99-4537-b2f6-6c2ad5baae62.json', { position: 0, id: '0b573a33-df99-4537-b2f6-6c2ad5baae62' }],
    ['event-00042-event1.json', { position: 42, id: 'event1' }],
    ['event-1234567-abc.json', { position: 1234567, id: 'abc' }],
    ['event-00001-a.b.json', { position: 1, id: 'a.b' }],
  ])('reads %s', (name, want) => {
    expect(parseEventFileName(name)).toEqual({ name, ...want });
  });

  it.each([
    'meta.json',
    'event-0001-abc.json',
    'event-00001-.json',
    'event-00001-abc.json.tmp',
    'event-00001-abc.JSON',
    'event-00001-a\\b.json',
    'event-99999999999999999999-abc.json',
  ])('ignores %s', (name) => {
    expect(parseEventFileName(name)).toBeUndefined();
  });
});
