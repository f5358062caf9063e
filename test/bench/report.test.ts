import type { Dataset } from '../../dev/bench/datasets';
import { benchPlan } from '../../dev/bench/plan';
import { renderReport } from '../../dev/bench/report';
import type { BenchResults, ConversationResults } from '../../dev/bench/run';
import type { ScenarioName } from '../../dev/bench/scenarios';
import type { ServerLoadFigures } from '../../dev/bench/side-by-side';
import { checkTargets } from '../../dev/bench/targets';

const MiB = 2 ** 20;

function figures(requestsPerSecond: number, p50Ms: number, cpuMicrosPerRequest = 100): ServerLoadFigures {
  return { requestsPerSecond, p50Ms, p99Ms: p50Ms * 3, maxMs: p50Ms * 5, successes: requestsPerSecond * 5, failures: 0, cpuMicrosPerRequest };
}

const SCENARIOS: ScenarioName[] = ['first-page', 'deep-page', 'first-page-desc', 'sparse-kind', 'body-no-match', 'narrow-window'];

/** A conversation whose first page runs at `firstPageRatio` of a 10,000 req/s baseline, and the floor at `floorRatio`. */
function conversation(
  events: number,
  options: { firstPageRatio: number; floorRatio: number; coldOpenMs: number; residentMiB: number; peakMiB?: number },
): ConversationResults {
  const dataset: Dataset = {
    spec: { label: events >= 100_000 ? '100k' : '10k', events, seed: 'test' },
    conversationIdHex: 'be7cda7a000000000000000000100000',
    directory: '/nowhere',
    facts: {
      deepPageId: 'cb3de256-0552-46c6-ab64-4e5962948c0b',
      windowGte: '2026-06-16T06:20:28',
      windowLt: '2026-06-16T06:21:49',
      windowEvents: 20,
      lastTimestamp: '2026-06-16T09:00:00',
    },
  };
  return {
    dataset,
    coldOpen: {
      readyMs: 700,
      firstAnswerMs: options.coldOpenMs,
      idleMemory: { residentBytes: 105 * MiB, peakResidentBytes: 105 * MiB },
      firstPageMemory: { residentBytes: options.residentMiB * MiB, peakResidentBytes: (options.peakMiB ?? options.residentMiB) * MiB },
      loadedMemory: { residentBytes: options.residentMiB * MiB, peakResidentBytes: options.residentMiB * MiB },
      diskBytes: 184 * MiB,
    },
    readFloor: { files: events, readMs: 650, readAndParseMs: 1250 },
    baselineReadyMs: 260,
    baselineResidentBytes: 80 * MiB,
    scenarios: SCENARIOS.map((name) => ({
      scenario: { name, description: name },
      items: 100,
      bodyBytes: 200_000,
      ours: name === 'first-page' ? figures(10_000 * options.firstPageRatio, 4) : figures(3000, name === 'body-no-match' ? 12 : 4.5),
      baseline: figures(10_000, 1.3, 84),
    })),
    firstPageFloor: figures(10_000 * options.floorRatio, 3.3, 270),
    firstPageExpress: figures(5_500, 2.9, 180),
  };
}

function results(quick: boolean, main: ConversationResults, smallMaxMs = 37, installedRatio = 1.04): BenchResults {
  return {
    plan: benchPlan(quick),
    startedAt: new Date('2026-11-21T09:53:00Z'),
    elapsedSeconds: 190,
    machine: { cpuModel: 'test CPU', cores: 2, memoryGiB: 24, nodeVersion: 'v20', system: 'Linux' },
    loadAverageAtStart: 0.5,
    loadAverageAtEnd: 0.8,
    commit: 'abc1234',
    conversations: [main],
    smallWait: { bigOpenMs: 2900, smallRequests: 1500, smallP50Ms: 2.5, smallP99Ms: 20, smallMaxMs },
    validatedFirstPage: figures(300, 45, 3600),
    append: { appended: 1000, writeMs: 200, visible: 1000, visibleAfterLastWriteMs: 150, load: figures(2000, 7) },
    todaysShape: {
      servedEvents: 93_334,
      storedEvents: 100_000,
      seedShape: { ...main.coldOpen, firstAnswerMs: 3000, readyMs: 700 },
      todaysShape: { ...main.coldOpen, firstAnswerMs: 3230, readyMs: 700 },
    },
    installedPackage: {
      tarballBytes: 944_149,
      rounds: [1, 2].map(() => ({ checkout: figures(3000, 5, 300), installed: figures(3000 * installedRatio, 5, 300 / installedRatio) })),
    },
    scaling: undefined,
  };
}

const verdicts = (run: BenchResults) => Object.fromEntries(checkTargets(run).map((target) => [target.name.replace(/ \(.*\)$/, ''), target.pass]));

describe('the bench targets', () => {
  it('judges every target on a full run', () => {
    const run = results(
      false,
      conversation(100_000, { firstPageRatio: 0.35, floorRatio: 0.38, coldOpenMs: 2620, residentMiB: 365, peakMiB: 470 }),
      52,
    );

    expect(verdicts(run)).toEqual({
      'first page throughput': false,
      'deep page p50': true,
      'body no-match p50': true,
      'cold open': true,
      'resident memory right after the first page of a fresh open': true,
      'peak resident memory while opening': false,
      'small-conversation wait while 100k loads': false,
      "installed package's first page against the checkout's": true,
    });
  });

  it('misses the installed package when it runs slower than the checkout beyond noise', () => {
    const run = results(false, conversation(100_000, { firstPageRatio: 0.55, floorRatio: 0.6, coldOpenMs: 2620, residentMiB: 365 }), 37, 0.7);

    expect(verdicts(run)["installed package's first page against the checkout's"]).toBe(false);
    expect(renderReport(run, checkTargets(run))).toContain('| round 2: installed tarball | 2100 | 0.70 |');
  });

  it('leaves the targets set for 100k events unjudged on the quick run’s 10k conversation', () => {
    const run = results(true, conversation(10_000, { firstPageRatio: 0.6, floorRatio: 0.7, coldOpenMs: 1100, residentMiB: 157 }));

    expect(verdicts(run)).toEqual({
      'first page throughput': true,
      'deep page p50': true,
      'body no-match p50': undefined,
      'cold open': undefined,
      'resident memory right after the first page of a fresh open': undefined,
      'peak resident memory while opening': undefined,
      'small-conversation wait while 10k loads': undefined,
      "installed package's first page against the checkout's": true,
    });
    expect(renderReport(run, checkTargets(run))).toContain(
      '| cold open (10k) | < 3 s for 100k | 1.10 s | not judged (set for 100k events; run the full bench) |',
    );
  });
});

describe('the bench report', () => {
  const run = results(false, conversation(100_000, { firstPageRatio: 0.35, floorRatio: 0.38, coldOpenMs: 2620, residentMiB: 365 }));
  const report = renderReport(run, checkTargets(run));

  it('puts the framework floor between the baseline and our server, as ratios to the baseline', () => {
    expect(report).toContain('| 100k: baseline (node:http) | 10000 | 1.00 |');
    expect(report).toContain('| 100k: framework floor (Express + request validation) | 3800 | 0.38 | 3.30 | 9.90 | 270 | 3.21 | 0 |');
    expect(report).toContain('| 100k: ours | 3500 | 0.35 |');
  });

  it("compares opening the same events in the seed's shape and in today's", () => {
    expect(report).toContain('| seed | 184 | 3000 | 2300 | 365 |');
    expect(report).toContain('| today | 184 | 3230 | 2530 | 365 |');
    expect(report).toContain('Removing what the contract does not list costs 230 ms on this open (10%)');
  });

  it('names the floor beside the first-page verdict', () => {
    expect(report).toContain(
      '| first page throughput (100k) | >= 0.5x baseline | 0.35x (3500 vs 10000 req/s); framework floor 0.38x, Express alone 0.55x | **MISS** |',
    );
  });
});
