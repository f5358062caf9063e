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
    ['not-a-uuid', { given: 'not-a-uuid', want: { ok: false, message: 'invalid character: found `n` at 1' } }],
    ['123', { given: '123', want: { ok: false, message: 'invalid length: expected length 32 for simple format, found 3' } }],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(parseUuid(given)).toEqual(want);
  });

  it.each([
    ['a bad character after valid ones counts from 1', `${HYPHENATED.slice(0, 35)}g`, 'invalid character: found `g` at 36'],
    ['a bad character inside braces counts the brace', `{${HYPHENATED.slice(0, 4)}x${HYPHENATED.slice(5)}}`, 'invalid character: found `x` at 6'],
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
