import { fail, formatJson, formatText, hasFailure, pass, redactChecks, redactSecret, summarize, warn, type Check } from '../../src/doctor/report';

const checks: Check[] = [
  pass('model string', '"openai/qwen3" has the openai/ prefix'),
  warn('model server host', 'localhost is a loopback address', 'Listen on 0.0.0.0.'),
  fail('context window', '4096 tokens (--context-window)', 'Raise it.', '--context-window'),
];

describe('report', () => {
  test('builders produce plain data, with source only when given', () => {
    expect(checks).toEqual([
      { name: 'model string', status: 'pass', message: '"openai/qwen3" has the openai/ prefix' },
      { name: 'model server host', status: 'warn', message: 'localhost is a loopback address', fix: 'Listen on 0.0.0.0.' },
      { name: 'context window', status: 'fail', message: '4096 tokens (--context-window)', fix: 'Raise it.', source: '--context-window' },
    ]);
  });

  test('text: one line per check, the fix below it, a summary last', () => {
    expect(formatText(checks)).toBe(
      [
        'PASS  model string: "openai/qwen3" has the openai/ prefix',
        'WARN  model server host: localhost is a loopback address',
        '      fix: Listen on 0.0.0.0.',
        'FAIL  context window: 4096 tokens (--context-window)',
        '      fix: Raise it.',
        '',
        '1 passed, 1 warning, 1 failed',
        '',
      ].join('\n'),
    );
  });

  test('json: verdict, counts and the checks', () => {
    expect(JSON.parse(formatJson(checks))).toEqual({ ok: false, summary: { pass: 1, warn: 1, fail: 1 }, checks });
    expect(JSON.parse(formatJson(checks.slice(0, 2)))).toMatchObject({ ok: true, summary: { pass: 1, warn: 1, fail: 0 } });
  });

  test('a failure, and only a failure, makes the run fail', () => {
    expect(hasFailure(checks)).toBe(true);
    expect(hasFailure(checks.slice(0, 2))).toBe(false);
    expect(summarize([])).toEqual({ pass: 0, warn: 0, fail: 0 });
  });

  test('secrets are masked in every text field', () => {
    const leaky: Check[] = [fail('tool use', 'server said: bad key sk-abc123', 'Do not use sk-abc123.', 'http://h:1/v1?k=sk-abc123')];
    expect(redactChecks(leaky, 'sk-abc123')).toEqual([fail('tool use', 'server said: bad key ***', 'Do not use ***.', 'http://h:1/v1?k=***')]);
  });

  test('placeholder keys shorter than four characters are not masked, so words stay intact', () => {
    expect(redactSecret('fix: export x', 'x')).toBe('fix: export x');
    expect(redactSecret('key EMPTY sent', 'EMPTY')).toBe('key *** sent');
  });
});
