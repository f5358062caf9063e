import { sessionKeysFromEnv } from '../../src/server/session-keys';

describe('sessionKeysFromEnv: the keys the reference reads (docs/reference-behaviour.md, "Server and session keys")', () => {
  const cases: Array<[string, { given: NodeJS.ProcessEnv; want: string[] }]> = [
    ['none set', { given: {}, want: [] }],
    ['SESSION_API_KEY', { given: { SESSION_API_KEY: 'a' }, want: ['a'] }],
    ['OH_SESSION_API_KEYS_0', { given: { OH_SESSION_API_KEYS_0: 'a' }, want: ['a'] }],
    ['both, SESSION_API_KEY first', { given: { OH_SESSION_API_KEYS_0: 'b', SESSION_API_KEY: 'a' }, want: ['a', 'b'] }],
    [
      'indexed keys in order',
      { given: { OH_SESSION_API_KEYS_1: 'b', OH_SESSION_API_KEYS_0: 'a', OH_SESSION_API_KEYS_2: 'c' }, want: ['a', 'b', 'c'] },
    ],
    ['up to the first missing index', { given: { OH_SESSION_API_KEYS_0: 'a', OH_SESSION_API_KEYS_2: 'c' }, want: ['a'] }],
    ['a key at index 1 without index 0 is not read', { given: { OH_SESSION_API_KEYS_1: 'b' }, want: [] }],
    [
      'empty values are no keys, and do not end the list',
      { given: { SESSION_API_KEY: '', OH_SESSION_API_KEYS_0: '', OH_SESSION_API_KEYS_1: 'b' }, want: ['b'] },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(sessionKeysFromEnv(given)).toEqual(want);
  });
});
