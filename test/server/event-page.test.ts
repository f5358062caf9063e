import { adjacentPiecesJoined, eventPageBody } from '../../src/server/event-page';

const parsed = (parts: readonly Buffer[]) => JSON.parse(Buffer.concat(parts).toString('utf8'));

describe('eventPageBody', () => {
  it('puts a comma between pieces, each of one event or of several already joined, and writes them as they are', () => {
    const pieces = [Buffer.from('{"a":1},{"b":2}'), Buffer.from('{"c":3}')];

    const { parts } = eventPageBody(pieces, 'd');

    expect(parsed(parts)).toEqual({ items: [{ a: 1 }, { b: 2 }, { c: 3 }], next_page_id: 'd' });
    expect(parts.filter((part) => pieces.some((piece) => piece === part))).toHaveLength(2);
  });

  it('frames an empty page', () => {
    expect(Buffer.concat(eventPageBody([], null).parts).toString()).toBe('{"items":[],"next_page_id":null}');
  });

  it('serves the bytes as stored, whitespace and key order included', () => {
    const stored = Buffer.from('{ "z": 1,  "a": "é" }');

    expect(Buffer.concat(eventPageBody([stored], null).parts).toString()).toBe('{"items":[{ "z": 1,  "a": "é" }],"next_page_id":null}');
  });
});

describe('adjacentPiecesJoined', () => {
  const joined = (pieces: readonly Buffer[]) => pieces.map((piece) => piece.toString()).join(',');

  it('makes one piece of views that follow one another in one buffer with a comma between, the same bytes', () => {
    const buffer = Buffer.from('{"a":1},{"b":2},{"c":3}');
    const views = [buffer.subarray(0, 7), buffer.subarray(8, 15), buffer.subarray(16)];

    const pieces = adjacentPiecesJoined(views);

    expect(pieces).toHaveLength(1);
    expect(joined(pieces)).toBe(joined(views));
  });

  it('keeps apart pieces of other buffers, views with something else between, and views out of order', () => {
    const buffer = Buffer.from('{"a":1};{"b":2},{"c":3}');
    const other = Buffer.from('{"d":4}');
    const views = [buffer.subarray(0, 7), buffer.subarray(8, 15), other, buffer.subarray(16), buffer.subarray(8, 15)];

    const pieces = adjacentPiecesJoined(views);

    expect(pieces).toHaveLength(5);
    expect(joined(pieces)).toBe(joined(views));
  });
});
