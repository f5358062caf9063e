import { findApiKeyArgument, interpretFlags, type DoctorFlags, type DoctorRequest } from '../../src/doctor/arguments';

const MODEL_FLAGS: DoctorFlags = { model: 'openai/qwen3', 'base-url': 'http://10.0.0.5:8000/v1', 'api-key': 'sk-args' };
const MODEL_TARGET = { model: 'openai/qwen3', baseUrl: 'http://10.0.0.5:8000/v1', apiKey: 'sk-args' };

describe('interpretFlags', () => {
  const accepted: Array<[string, { given: DoctorFlags; want: DoctorRequest }]> = [
    ['the three model flags', { given: MODEL_FLAGS, want: { kind: 'run', json: false, options: { model: MODEL_TARGET, probeTools: false } } }],
    [
      '--values alone',
      { given: { values: 'values.yaml' }, want: { kind: 'run', json: false, options: { valuesFile: 'values.yaml', probeTools: false } } },
    ],
    [
      'everything',
      {
        given: { ...MODEL_FLAGS, 'context-window': '32768', 'probe-tools': true, values: 'v.yaml', json: true },
        want: { kind: 'run', json: true, options: { model: MODEL_TARGET, contextWindow: 32768, probeTools: true, valuesFile: 'v.yaml' } },
      },
    ],
    ['--help', { given: { help: true, model: 'x' }, want: { kind: 'help' } }],
  ];
  test.each(accepted)('accepts %s', (_name, { given, want }) => {
    expect(interpretFlags(given)).toEqual(want);
  });

  const rejected: Array<[string, { given: DoctorFlags; want: string }]> = [
    [
      'nothing at all',
      {
        given: {},
        want: 'nothing to check. Pass --model, --base-url and --api-key for the model checks, --values FILE for the Helm values checks, or both.',
      },
    ],
    [
      'a model flag without the others',
      {
        given: { model: 'openai/qwen3', 'api-key': 'k' },
        want: '--model, --base-url and --api-key go together; missing --base-url. Pass all three, or only --values for the values checks.',
      },
    ],
    [
      '--probe-tools with only --values',
      {
        given: { values: 'v.yaml', 'probe-tools': true },
        want: '--context-window and --probe-tools belong to the model checks. Pass --model, --base-url and --api-key with them.',
      },
    ],
    [
      'a context window that is not a number',
      {
        given: { ...MODEL_FLAGS, 'context-window': '32k' },
        want: '--context-window must be a positive whole number of tokens, such as --context-window 32768; got "32k".',
      },
    ],
    [
      'a zero context window',
      { given: { ...MODEL_FLAGS, 'context-window': '0' }, want: '--context-window must be a positive whole number of tokens' },
    ],
    [
      'an empty key',
      {
        given: { ...MODEL_FLAGS, 'api-key': '' },
        want: '--api-key is empty. Pass the key the model server was started with, or a placeholder such as EMPTY when it checks none.',
      },
    ],
    ['an empty values path', { given: { values: '' }, want: '--values is empty.' }],
  ];
  test.each(rejected)('rejects %s', (_name, { given, want }) => {
    const request = interpretFlags(given);
    expect(request.kind).toBe('invalid');
    expect(request.kind === 'invalid' && request.error).toContain(want);
  });
});

describe('findApiKeyArgument', () => {
  const cases: Array<[string, { given: string[]; want: string | undefined }]> = [
    ['separate value', { given: ['--model', 'm', '--api-key', 'sk-1'], want: 'sk-1' }],
    ['joined value', { given: ['--api-key=sk-2', '--bogus'], want: 'sk-2' }],
    ['absent', { given: ['--values', 'v.yaml'], want: undefined }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(findApiKeyArgument(given)).toBe(want);
  });
});
