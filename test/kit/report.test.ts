import { curlLine } from '../../src/kit/curl';
import { renderJson, renderJunit, renderText } from '../../src/kit/run/report';
import type { CheckResult, RunResult } from '../../src/kit/run/run';
import { elementsNamed, parseXml } from './support/xml';

/* The three renderings of one hand-made result: what a person, a CI tool and a script read. */
const finding = {
  message: 'answered 200 <items> & "more"\u0007',
  expected: '422',
  request: {
    method: 'GET' as const,
    url: 'http://127.0.0.1:8000/api/conversations/abc/events/search?limit=101',
    curl: curlLine('http://127.0.0.1:8000/api/conversations/abc/events/search?limit=101', true),
  },
  response: { status: 200, excerpt: 'EventPage with 100 items [...]' },
};
const check = (id: string, status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult => ({
  id,
  suite: 'seed',
  title: `title of ${id}`,
  status,
  findings: [],
  durationMs: 12,
  requests: 1,
  ...extra,
});

const RESULT: RunResult = {
  target: { baseUrl: 'http://127.0.0.1:8000', conversationId: 'abc' },
  seed: 42,
  runs: 20,
  levels: ['seed', 'reference'],
  startedAt: '2026-06-16T05:39:48.701Z',
  durationMs: 1234,
  requests: { sent: 300, max: 2000 },
  outcome: 'failed',
  suites: [
    {
      name: 'seed',
      checks: [
        check('errors.limit-above-max', 'failed', { findings: [finding] }),
        check('paging.exactly-once', 'passed'),
        check('filters.body', 'skipped', { details: 'no message text' }),
      ],
    },
    {
      name: 'reference',
      checks: [check('ref.errors.limit-exponent', 'allowed', { suite: 'reference', allowedReason: 'we are stricter', findings: [finding] })],
    },
  ],
  notes: ['paging.no-cycles is allowed to fail but passed: remove it from the allow file'],
};

describe('text', () => {
  const text = renderText(RESULT);

  it('lists every check with its status, and the seed to replay', () => {
    expect(text).toContain('seed          42 (replay with --seed 42 --runs 20)');
    expect(text).toContain('seed level (what the contract mandates): 1 passed, 1 failed, 0 allowed, 1 skipped');
    expect(text).toContain('  FAIL    errors.limit-above-max  title of errors.limit-above-max');
    expect(text).toContain('  ok      paging.exactly-once');
    expect(text).toContain('  skip    filters.body  title of filters.body\n            no message text');
    expect(text).toContain('  allowed ref.errors.limit-exponent  title of ref.errors.limit-exponent\n            allowed: we are stricter');
    expect(text).toContain('note: paging.no-cycles is allowed to fail but passed');
    expect(text).toContain('FAILED: 1 passed, 1 failed, 1 allowed, 1 skipped; 300 requests in 1.2 s');
  });

  it('shows a failure as request, response, expectation and a curl line without the key', () => {
    expect(text).toContain(
      [
        '            - answered 200 <items> & "more"\u0007',
        '              expected:  422',
        '              request:   GET http://127.0.0.1:8000/api/conversations/abc/events/search?limit=101',
        '              response:  200 EventPage with 100 items [...]',
        `              reproduce: curl -sS -g -H "X-Session-API-Key: $SESSION_API_KEY" 'http://127.0.0.1:8000/api/conversations/abc/events/search?limit=101'`,
      ].join('\n'),
    );
  });

  it('says why it could not run instead of listing checks', () => {
    const text = renderText({ ...RESULT, outcome: 'cannot-run', problem: 'Cannot reach the server.', suites: [] });
    expect(text).toContain('CANNOT RUN: Cannot reach the server.');
    expect(text).not.toContain('PASSED');
  });
});

describe('JUnit', () => {
  const xml = renderJunit(RESULT);
  const root = parseXml(xml);

  it('is well-formed even when a finding holds markup and control characters', () => {
    expect(xml).not.toContain('\u0007');
    expect(elementsNamed(root, 'failure')[0]!.attributes['message']).toBe('answered 200 <items> & "more"\uFFFD');
  });

  it('has one testsuite per level and a testcase per check, with the right counts', () => {
    expect(root.attributes).toMatchObject({ tests: '4', failures: '1', skipped: '2' });
    const [seed, reference] = elementsNamed(root, 'testsuite');
    expect(seed!.attributes).toMatchObject({ name: 'seed', tests: '3', failures: '1', skipped: '1', time: '0.036' });
    expect(reference!.attributes).toMatchObject({ name: 'reference', tests: '1', failures: '0', skipped: '1' });
    expect(elementsNamed(seed!, 'testcase').map((testcase) => testcase.attributes['name'])).toEqual([
      'errors.limit-above-max: title of errors.limit-above-max',
      'paging.exactly-once: title of paging.exactly-once',
      'filters.body: title of filters.body',
    ]);
  });

  it('carries the findings as the failure text and the allow reason as a skip message', () => {
    expect(elementsNamed(root, 'failure')[0]!.text).toContain('reproduce: curl -sS -g -H "X-Session-API-Key: $SESSION_API_KEY"');
    expect(elementsNamed(root, 'skipped').map((skip) => skip.attributes['message'])).toEqual([
      'no message text',
      'allowed divergence: we are stricter',
    ]);
  });

  it('reports a run that could not start as an error', () => {
    const failedToStart = parseXml(renderJunit({ ...RESULT, outcome: 'cannot-run', problem: 'Conversation x was not found (404).', suites: [] }));
    expect(failedToStart.attributes).toMatchObject({ tests: '0', errors: '1' });
    expect(elementsNamed(failedToStart, 'error')[0]!.attributes['message']).toBe('Conversation x was not found (404).');
  });
});

it('JSON is the result as it is', () => {
  expect(JSON.parse(renderJson(RESULT))).toEqual(RESULT);
});

it('curl lines quote single quotes and leave the key to the shell', () => {
  expect(curlLine("http://h/x?body=it's", false)).toBe(`curl -sS -g 'http://h/x?body=it'\\''s'`);
});
