import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { hyphenated, uuidHex } from '../../src/kit/run/conversation-id';
import { CONTRACT_KINDS, classPathOf, defaultSourceOf, kindNamedBy } from '../../src/kit/run/event-kinds';
import { instantOf } from '../../src/kit/run/instants';
import { searchableTextOf } from '../../src/kit/run/searchable-text';

/*
 * The kit's own oracle pieces, on their own cases (not compared with src/search: the point
 * is that they are written apart, so agreeing with it would prove nothing).
 */
const utcMicros = (iso: string, extraMicros = 0) => Date.parse(iso) * 1000 + extraMicros;

describe('instantOf', () => {
  it.each([
    ['a Z value with microseconds', '2026-06-16T05:39:48.701247Z', utcMicros('2026-06-16T05:39:48.701Z', 247)],
    ['an offset shifts the instant', '2026-06-16T07:39:48.5+02:00', utcMicros('2026-06-16T05:39:48.500Z')],
    ['an offset without a colon', '2026-06-16T00:39:48-0500', utcMicros('2026-06-16T05:39:48Z')],
    ['a lower-case z and a space separator', '2026-06-16 05:39z', utcMicros('2026-06-16T05:39:00Z')],
    ['more than six fraction digits are cut, not rounded', '2026-06-16T05:39:48.7012479Z', utcMicros('2026-06-16T05:39:48.701Z', 247)],
    ['unix seconds', '1781588388', 1781588388 * 1_000_000],
    ['unix milliseconds (above 2e10)', '1781588388123', 1781588388123 * 1000],
    ['29 February of a leap year', '2024-02-29T00:00:00Z', utcMicros('2024-02-29T00:00:00Z')],
  ])('%s', (_name, text, want) => {
    expect(instantOf(text)).toBe(want);
  });

  it.each([
    ['30 February', '2024-02-30T00:00:00'],
    ['29 February of a common year', '2023-02-29'],
    ['month 13', '2024-13-01'],
    ['hour 24', '2024-01-01T24:00:00'],
    ['garbage', 'garbage'],
    ['empty', ''],
    ['not a string', 17],
  ])('%s is not an instant', (_name, text) => {
    expect(instantOf(text)).toBeUndefined();
  });

  it('naive values are local wall-clock time, whatever the zone', () => {
    const local = new Date(2026, 5, 16, 5, 39, 48, 701);
    expect(instantOf('2026-06-16T05:39:48.701247')).toBe(local.getTime() * 1000 + 247);
    expect(instantOf('2026-06-16')).toBe(new Date(2026, 5, 16).getTime() * 1000);
  });

  it('two stored values within one millisecond keep their order', () => {
    expect(instantOf('2026-06-16T05:39:48.701247')!).toBeLessThan(instantOf('2026-06-16T05:39:48.701900')!);
    expect(instantOf('2026-06-16T05:39:48.7019')).toBe(instantOf('2026-06-16T05:39:48.701900'));
  });
});

describe('searchableTextOf', () => {
  const message = (llm: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    kind: 'MessageEvent',
    llm_message: { role: 'user', ...llm },
    ...extra,
  });

  it('joins content, extended content and reasoning with single spaces, lower-cased', () => {
    const item = message(
      {
        content: [
          { type: 'text', text: 'Fix THE' },
          { type: 'text', text: 'Bug' },
        ],
        reasoning_content: 'Think',
      },
      { extended_content: [{ type: 'text', text: 'Skill' }] },
    );
    expect(searchableTextOf(item)).toBe('fix the bug skill think');
  });

  it('an image part stands as [Image: N URLs], lower-cased with the rest', () => {
    expect(
      searchableTextOf(
        message({
          content: [
            { type: 'image', image_urls: ['a', 'b'] },
            { type: 'text', text: 'X' },
          ],
        }),
      ),
    ).toBe('[image: 2 urls] x');
  });

  it('only message events have text; a message without llm_message has none', () => {
    expect(searchableTextOf({ kind: 'ActionEvent', llm_message: { content: [{ type: 'text', text: 'x' }] } })).toBeUndefined();
    expect(searchableTextOf({ kind: 'MessageEvent' })).toBeUndefined();
    expect(searchableTextOf(message({}))).toBe('');
  });
});

describe('event kinds', () => {
  it('class paths as the reference names them', () => {
    expect(classPathOf('MessageEvent')).toBe('openhands.sdk.event.llm_convertible.message.MessageEvent');
    expect(classPathOf('PauseEvent')).toBe('openhands.sdk.event.user_action.PauseEvent');
    expect(kindNamedBy('openhands.sdk.event.condenser.Condensation')).toBe('Condensation');
    expect(kindNamedBy('openhands.sdk.event.token.Condensation')).toBeUndefined();
    expect(kindNamedBy('Nonsense')).toBeUndefined();
    expect(CONTRACT_KINDS).toHaveLength(14);
  });

  it('default sources come from the contract document', () => {
    expect(defaultSourceOf('ActionEvent')).toBe('agent');
    expect(defaultSourceOf('PauseEvent')).toBe('user');
    expect(defaultSourceOf('ObservationEvent')).toBe('environment');
    expect(defaultSourceOf('MessageEvent')).toBeUndefined();
  });
});

describe('conversation ids', () => {
  const hex = '8f1a2b3c4d5e4f708192a3b4c5d6e7f8';
  it.each([hex, hex.toUpperCase(), hyphenated(hex), `{${hyphenated(hex)}}`, `urn:uuid:${hyphenated(hex).toUpperCase()}`])(
    '%s is the UUID',
    (text) => {
      expect(uuidHex(text)).toBe(hex);
    },
  );
  it.each(['not-a-uuid', '123', `${hex}0`, `{${hex}`, `${hyphenated(hex)}-`])('%s is not a UUID', (text) => {
    expect(uuidHex(text)).toBeUndefined();
  });
});

it('the kit imports nothing from src/search, src/server or src/store', () => {
  const kitRoot = path.join(__dirname, '../../src/kit');
  const files = readdirSync(kitRoot, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
  const offenders = files.filter((file) =>
    /from '(?:\.\.\/)+(?:search|server|store)(?:\/[^']*)?'/.test(readFileSync(path.join(kitRoot, file), 'utf8')),
  );
  expect(files.length).toBeGreaterThan(20);
  expect(offenders).toEqual([]);
});
