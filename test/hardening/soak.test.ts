/**
 * The soak library, short: the real server in a child process, 8 readers and 100 appends a
 * second for 5 s, so CI covers what `npm run soak` does for a minute (docs/hardening.md
 * has the figures of a full run). Every check must pass and the figures must add up.
 */
import { summarizeLatency } from '../../dev/soak/latency';
import { runSoak } from '../../dev/soak/run';

it('5 s of 8 readers and 100 appends a second: no failed request, every append served exactly once, a clean stop', async () => {
  const report = await runSoak({ seconds: 5, clients: 8, conversations: 2, initialEvents: 150, appendsPerSecond: 100 });

  // Whether the appender held its rate is a fact about this machine's clock and load (a busy
  // CI machine falls behind), not about the server: the server's checks are judged, and every
  // append that was made must be served exactly once whatever the rate reached.
  const serverChecks = report.checks.filter(({ name }) => name !== 'append rate held');
  expect(serverChecks.map(({ name, ok }) => ({ name, ok }))).toEqual([
    { name: 'no failed request', ok: true },
    { name: 'every appended event served exactly once', ok: true },
    { name: 'server stopped cleanly', ok: true },
  ]);
  expect(report.appends.appended).toBeGreaterThan(0);
  expect(report.errorSamples).toEqual([]);
  expect(report.latency.count).toBe(report.requests);
  expect(report.walks).toBeGreaterThan(0);
  expect(report.appends.walkedEvents).toBe(2 * 150 + report.appends.appended);
  expect(report.serverExit).toEqual({ code: 0, signal: null });
  if (process.platform === 'linux') expect(report.rssKb.end).toBeGreaterThan(0);
});

describe('summarizeLatency: nearest-rank percentiles', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
  const cases: Array<[string, { given: number[]; want: ReturnType<typeof summarizeLatency> }]> = [
    ['no samples', { given: [], want: { count: 0, p50: 0, p90: 0, p99: 0, max: 0 } }],
    ['one sample', { given: [7], want: { count: 1, p50: 7, p90: 7, p99: 7, max: 7 } }],
    ['1..100 in any order', { given: hundred, want: { count: 100, p50: 50, p90: 90, p99: 99, max: 100 } }],
    [
      'a tail of one slow request in a thousand stays out of p99',
      { given: [...Array(999).fill(2), 500], want: { count: 1000, p50: 2, p90: 2, p99: 2, max: 500 } },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(summarizeLatency(given)).toEqual(want);
  });
});
