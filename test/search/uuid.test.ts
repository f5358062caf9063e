import { type UuidParse, hyphenate, parseUuid } from '../../src/search';

const HEX = '8f1a2b3c4d5e6f708192a3b4c5d6e7f8';
const HYPHENATED = '8f1a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8';

describe('parseUuid: the forms the reference accepts (docs/reference-behaviour.md, "Accepted values and errors")', () => {
  const cases: Array<[string, { given: string; want: UuidParse }]> = [
    ['hyphenated', { given: HYPHENATED, want: { ok: true, hex: HEX } }],
    ['32 hex digits, as the OpenHands app server sends it', { given: HEX, want: { ok: true, hex: HEX } }],
    ['upper case, hyphenated', { given: HYPHENATED.toUpperCase(), want: { ok: true, hex: HEX } }],
    ['upper case, 32 hex digits', { given: HEX.toUpperCase(), want: { ok: true, hex: HEX } }],
    ['braces', { given: `{${HYPHENATED}}`, want: { ok: true, hex: HEX } }],
    ['urn:uuid: prefix', { given: `urn:uuid:${HYPHENATED}`, want: { ok: true, hex: HEX } }],
    ['not-a-uuid', { given: 'not-a-uuid', want: { ok: false, message: 'invalid character: found `n` at 0' } }],
    ['123', { given: '123', want: { ok: false, message: 'invalid length: found 3' } }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(parseUuid(given)).toEqual(want);
  });

  // Each message as pydantic 2.14 (the pinned reference's) words it for that input.
  it.each([
    ['a bad character after valid ones counts from 0', `${HYPHENATED.slice(0, 35)}g`, 'invalid character: found `g` at 35'],
    [
      'in braces of the right length, the position is inside them',
      `{${HYPHENATED.slice(0, 4)}x${HYPHENATED.slice(5)}}`,
      'invalid character: found `x` at 4',
    ],
    [
      'after urn:uuid: of the right length, the position is after it',
      `urn:uuid:${HYPHENATED.slice(0, 3)}z${HYPHENATED.slice(4)}`,
      'invalid character: found `z` at 3',
    ],
    ['in braces of another length, the brace counts', '{x}', 'invalid character: found `x` at 1'],
    ['after urn:uuid: of another length, the prefix counts', 'urn:uuid:x', 'invalid character: found `x` at 9'],
    [
      'the form is chosen by bytes: 39 bytes in braces are not the braced form',
      '{1234567\u00e9-1234-1234-1234-123456789012}',
      'invalid character: found `\u00e9` at 8',
    ],
    ['a lone closing brace', `${HYPHENATED}}`, 'invalid character: found `}` at 36'],
    ['31 hex digits', HEX.slice(1), 'invalid length: found 31'],
    ['37 hex digits', '1'.repeat(37), 'invalid length: found 37'],
    ['36 hex digits are read as the hyphenated form', '1'.repeat(36), 'invalid group count: expected 5, found 1'],
    ['32 hex digits in braces', `{${HEX}}`, 'invalid group count: expected 5, found 1'],
    ['32 characters with a hyphen', `${HEX.slice(0, 8)}-${HEX.slice(8, 31)}`, 'invalid group count: expected 5, found 2'],
    ['urn:uuid: and hex digits', 'urn:uuid:123', 'invalid group count: expected 5, found 1'],
    ['empty braces', '{}', 'invalid group count: expected 5, found 1'],
    ['only hyphens', '-'.repeat(36), 'invalid group count: expected 5, found 37'],
    [
      'a long first group',
      `${HEX.slice(0, 9)}-${HEX.slice(9, 12)}-${HEX.slice(12, 16)}-${HEX.slice(16, 20)}-${HEX.slice(20)}`,
      'invalid group length in group 0: expected 8, found 9',
    ],
    ['a short last group', HYPHENATED.slice(0, 35), 'invalid group length in group 4: expected 12, found 11'],
    ['an empty string', '', 'invalid length: found 0'],
    ['upper-case URN: is not the prefix', `URN:UUID:${HYPHENATED}`, 'invalid character: found `U` at 0'],
  ])('%s', (_name, given, want) => {
    expect(parseUuid(given)).toEqual({ ok: false, message: want });
  });

  it.each([
    ['31 hex digits', HEX.slice(1)],
    ['33 hex digits', `${HEX}0`],
    ['hyphens in the wrong places', `${HEX.slice(0, 9)}-${HEX.slice(9, 12)}-${HEX.slice(12, 16)}-${HEX.slice(16, 20)}-${HEX.slice(20)}`],
    ['32 hex digits in braces is not a braced form', `{${HEX}}`],
    ['whitespace around it', ` ${HYPHENATED}`],
  ])('rejects %s', (_name, given) => {
    expect(parseUuid(given).ok).toBe(false);
  });
});

describe('hyphenate', () => {
  it('prints 32 hex digits in the 8-4-4-4-12 form', () => {
    expect(hyphenate(HEX)).toBe(HYPHENATED);
  });
});
