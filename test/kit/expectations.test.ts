import { expectedEvents, firstOrderViolation, matchesFilters, type Filters } from '../../src/kit/run/expectations';
import { observeEvent } from '../../src/kit/run/observed-event';
import { hasZone, utcForm, withLocalOffset } from '../../src/kit/run/timestamp-values';
import { storedTimestampMicros } from '../../src/search';

/* The kit's oracle, case by case: the semantics it judges servers by (seed 4.1, docs/reference-behaviour.md, "Search"). */
const message = (id: string, text: string, extra: Record<string, unknown> = {}) =>
  observeEvent(
    {
      id,
      kind: 'MessageEvent',
      source: 'user',
      timestamp: '2026-06-16T05:39:48.701247',
      llm_message: { role: 'user', content: [{ type: 'text', text }] },
      ...extra,
    },
    0,
  );
const action = observeEvent({ id: 'act', kind: 'ActionEvent', timestamp: '2026-06-16T05:39:48.701900', tool_name: 'terminal' }, 1);
const pause = observeEvent({ id: 'pause', kind: 'PauseEvent', timestamp: '2026-06-16T05:39:48.701247' }, 2);

const CASES: [string, { event: ReturnType<typeof observeEvent>; filters: Filters; want: boolean }][] = [
  ['kind by short name', { event: action, filters: { kind: 'ActionEvent' }, want: true }],
  ['kind by class path', { event: action, filters: { kind: 'openhands.sdk.event.llm_convertible.action.ActionEvent' }, want: true }],
  ['another kind', { event: action, filters: { kind: 'MessageEvent' }, want: false }],
  ["the kind's default source when none is stored", { event: action, filters: { source: 'agent' }, want: true }],
  ['PauseEvent defaults to user', { event: pause, filters: { source: 'user' }, want: true }],
  ['body is case-insensitive', { event: message('m', 'Fix the Rounding bug'), filters: { body: 'ROUNDING' }, want: true }],
  [
    'body searches extended content and reasoning too',
    { event: message('m', 'hello', { extended_content: [{ type: 'text', text: 'skill notes' }] }), filters: { body: 'hello skill' }, want: true },
  ],
  ['body never matches other kinds', { event: action, filters: { body: 'terminal' }, want: false }],
  ['gte is inclusive at the microsecond', { event: pause, filters: { timestamp__gte: '2026-06-16T05:39:48.701247' }, want: true }],
  ['gte one microsecond later excludes', { event: pause, filters: { timestamp__gte: '2026-06-16T05:39:48.701248' }, want: false }],
  ['lt is exclusive', { event: pause, filters: { timestamp__lt: '2026-06-16T05:39:48.701247' }, want: false }],
  ['.701247 is before .701900 in the same millisecond', { event: pause, filters: { timestamp__lt: '2026-06-16T05:39:48.701900' }, want: true }],
  ['filters combine', { event: action, filters: { kind: 'ActionEvent', source: 'user' }, want: false }],
];

it.each(CASES)('%s', (_name, { event, filters, want }) => {
  expect(matchesFilters(event, filters)).toBe(want);
});

it('expected events keep the given order, reversed for TIMESTAMP_DESC', () => {
  const all = [pause, action];
  expect(expectedEvents(all, {}).map((event) => event.id)).toEqual(['pause', 'act']);
  expect(expectedEvents(all, {}, 'TIMESTAMP_DESC').map((event) => event.id)).toEqual(['act', 'pause']);
});

it('order violations are found with microsecond precision', () => {
  expect(firstOrderViolation([pause, action], 'TIMESTAMP')).toBeUndefined();
  expect(firstOrderViolation([action, pause], 'TIMESTAMP')?.index).toBe(1);
  expect(firstOrderViolation([action, pause], 'TIMESTAMP_DESC')).toBeUndefined();
});

describe('timestamp filter values', () => {
  it('a naive value gets the local offset; a zoned or date-only one stays as it is', () => {
    expect(withLocalOffset('2026-06-16T05:39:48.701247')).toMatch(/^2026-06-16T05:39:48\.701247[+-]\d{2}:\d{2}$/);
    expect(withLocalOffset('2026-06-16T05:39:48Z')).toBe('2026-06-16T05:39:48Z');
    expect(withLocalOffset('2026-06-16')).toBe('2026-06-16');
    expect(hasZone('2026-06-16')).toBe(false);
  });

  it('the offset form and the UTC form name the same instant as the naive value read locally', () => {
    const naive = '2026-06-16T05:39:48.701247';
    const micros = storedTimestampMicros(naive)!;
    expect(storedTimestampMicros(withLocalOffset(naive))).toBe(micros);
    expect(storedTimestampMicros(utcForm(micros))).toBe(micros);
    expect(utcForm(micros)).toMatch(/\.701247Z$/);
  });
});
