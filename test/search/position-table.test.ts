import { DENSE_POSITIONS, PositionTable } from '../../src/search';

describe('PositionTable', () => {
  const far = [-5, DENSE_POSITIONS, DENSE_POSITIONS + 7, 99_999_999_999];

  it('answers alike for positions in the array, beyond its first size, and in the Map (negative or far out)', () => {
    const table = new PositionTable(new Int32Array(0), 64);
    const positions = [0, 1, 63, 64, 5000, DENSE_POSITIONS - 1, ...far];
    for (const [i, position] of positions.entries()) table.set(position, i + 1);

    for (const [i, position] of positions.entries()) expect(table.get(position)).toBe(i + 1);
    expect(table.get(2)).toBe(0);
    expect(table.get(DENSE_POSITIONS + 1)).toBe(0);
  });

  it('clears with 0, in the array and in the Map, and visits only what holds a number', () => {
    const table = new PositionTable(new Uint16Array(0), 8);
    for (const position of [3, 10, ...far]) table.set(position, 7);
    table.set(10, 0);
    table.set(DENSE_POSITIONS, 0);

    const visited: [number, number][] = [];
    table.forEach((position, value) => {
      visited.push([position, value]);
    });

    expect(visited).toEqual([
      [3, 7],
      [-5, 7],
      [DENSE_POSITIONS + 7, 7],
      [99_999_999_999, 7],
    ]);
  });

  it('hands out the numbers after a position in position order, the Map after the array, up to a limit and an end', () => {
    const table = new PositionTable(new Int32Array(0), 8);
    for (const position of [DENSE_POSITIONS + 2, 0, 4, 9, DENSE_POSITIONS + 1, -1]) table.set(position, position + 100);

    expect(table.valuesAfter(-1, 10, DENSE_POSITIONS + 3)).toEqual([100, 104, 109, DENSE_POSITIONS + 101, DENSE_POSITIONS + 102]);
    expect(table.valuesAfter(0, 2, DENSE_POSITIONS + 3)).toEqual([104, 109]);
    expect(table.valuesAfter(4.5, 10, 9)).toEqual([DENSE_POSITIONS + 101, DENSE_POSITIONS + 102]);
  });

  it('gives back the room past the last position holding a number, and keeps every number', () => {
    const table = new PositionTable(new Int32Array(0), 1024);
    table.set(3, 1);
    table.set(500, 2);
    const before = table.byteLength;

    table.set(500, 0);
    table.trim();

    expect(table.byteLength).toBeLessThan(before);
    expect(table.byteLength).toBe(4 * 4);
    expect(table.get(3)).toBe(1);
    table.set(600, 3);
    expect(table.get(600)).toBe(3);
  });
});
