/**
 * One benchmark run, start to end: data, servers, every measurement. Returns the figures;
 * report.ts turns them into text and targets.ts judges them.
 */
import path from 'node:path';
import { type AppendFigures, measureAppendUnderLoad } from './append';
import { type ColdOpenFigures, measureColdOpen } from './cold-open';
import { type Dataset, ensureDataset } from './datasets';
import { type Machine, describeCommit, describeMachine, loadAverage } from './environment';
import { type InstalledPackageFigures, measureInstalledPackage } from './installed-package';
import { type BenchPlan, benchPlan } from './plan';
import { type ReadFloorFigures, bringIntoPageCache, measureReadFloor } from './read-floor';
import { type OurServerOptions, spawnOurServer, withServer } from './server-process';
import { type ScalingResults, measureScaling } from './scaling';
import { type ScenarioResult, type ServerLoadFigures, runSideBySide } from './side-by-side';
import { type SmallWaitFigures, measureSmallWaitDuringOpen } from './small-wait';
import { type TodaysShapeFigures, measureTodaysShapeOpen } from './todays-shape';
import { measureWithResponseValidation } from './validation';

export interface BenchOptions {
  readonly quick: boolean;
  readonly repoRoot: string;
  /** Generated conversations, markers and server logs go here (git-ignored). */
  readonly dataDirectory: string;
  /** Extra node flags for our server processes, for instance `--cpu-prof`. */
  readonly serverNodeFlags: readonly string[];
}

export interface ConversationResults {
  readonly dataset: Dataset;
  readonly coldOpen: ColdOpenFigures;
  readonly readFloor: ReadFloorFigures;
  /** Spawn to listening of the bare baseline process: the floor under our server's start. */
  readonly baselineReadyMs: number;
  /** Resident memory of the baseline process (node, tsx and a few page bodies): the floor under our idle server. */
  readonly baselineResidentBytes: number;
  readonly scenarios: readonly ScenarioResult[];
  /** The first page on the framework floor: our application without the store and the search. */
  readonly firstPageFloor: ServerLoadFigures;
  /** The first page on Express alone: one route, no validation. */
  readonly firstPageExpress: ServerLoadFigures;
}

/** Measured on the main conversation only. */
interface MainOnlyResults {
  readonly validatedFirstPage: ServerLoadFigures;
  readonly append: AppendFigures;
}

/** When, where and how busy: what every recorded run says of itself. */
export interface RunCircumstances {
  readonly plan: BenchPlan;
  readonly startedAt: Date;
  readonly elapsedSeconds: number;
  readonly machine: Machine;
  /** 1-minute load average when the run started and when it ended: other work on the machine. */
  readonly loadAverageAtStart: number;
  readonly loadAverageAtEnd: number;
}

export interface BenchResults extends MainOnlyResults, RunCircumstances {
  readonly commit: string;
  /** Smallest first; the last is the main conversation the remaining figures are about. */
  readonly conversations: readonly ConversationResults[];
  readonly smallWait: SmallWaitFigures;
  /** The main conversation's size opened in the seed's shape and in today's (todays-shape.ts). */
  readonly todaysShape: TodaysShapeFigures;
  /** The installed tarball's server beside the checkout's, first page of the main conversation; why not, when it could not be installed. */
  readonly installedPackage: InstalledPackageFigures | { readonly notMeasured: string };
  /** How cost grows with events and conversations, and the memory budget (full runs only). */
  readonly scaling: ScalingResults | undefined;
}

/** Starts the record of a run's circumstances; `end` completes it once the run is over. */
export function runStarted(): { end(plan: BenchPlan): RunCircumstances } {
  const startedAt = new Date();
  const started = performance.now();
  const loadAverageAtStart = loadAverage();
  return {
    end: (plan) => ({
      plan,
      startedAt,
      elapsedSeconds: (performance.now() - started) / 1000,
      machine: describeMachine(),
      loadAverageAtStart,
      loadAverageAtEnd: loadAverage(),
    }),
  };
}

/** Runs every measurement of the plan; `progress` hears what is happening. */
export async function runBenchmark(options: BenchOptions, progress: (line: string) => void): Promise<BenchResults> {
  const circumstances = runStarted();
  const commit = describeCommit(options.repoRoot);
  const plan = benchPlan(options.quick);
  const conversationsRoot = path.join(options.dataDirectory, 'conversations');
  const markers = path.join(options.dataDirectory, 'markers');
  const small = ensureDataset(plan.small, conversationsRoot, markers, progress);
  const datasets = plan.conversations.map((spec) => ensureDataset(spec, conversationsRoot, markers, progress));
  const main = datasets[datasets.length - 1]!;

  const logs = path.join(options.dataDirectory, 'logs');
  const serverOptions = (name: string): Omit<OurServerOptions, 'validateResponses'> => ({
    repoRoot: options.repoRoot,
    conversationsRoot,
    nodeFlags: options.serverNodeFlags,
    logFile: path.join(logs, `${name}.log`),
  });
  const startOurs = (name: string) => spawnOurServer(name, { ...serverOptions(name), validateResponses: false });

  // Every timed open and the loading floor find the files in the page cache, as a server
  // does that opens what an agent has just written: the bench machine evicts files left
  // unread for a few minutes and an open from the disk takes several times as long
  // (bench/README.md), so otherwise the cold-open figure would depend on the run's timing.
  const conversations: ConversationResults[] = [];
  let mainOnly: MainOnlyResults | undefined;
  for (const dataset of datasets) {
    const label = dataset.spec.label;
    progress(`${label}: loading floor`);
    bringIntoPageCache(dataset.directory);
    const readFloor = measureReadFloor(dataset.directory);
    const measured = await withServer(startOurs(`ours-${label}`), async (ours) => {
      progress(`${label}: cold open`);
      const coldOpen = await measureColdOpen(ours, dataset);
      progress(`${label}: search scenarios, ours and baseline`);
      const sideLogs = {
        repoRoot: options.repoRoot,
        baselineLogFile: path.join(logs, `baseline-${label}.log`),
        floorLogFile: path.join(logs, `framework-floor-${label}.log`),
        expressLogFile: path.join(logs, `express-alone-${label}.log`),
      };
      const sideBySide = await runSideBySide(ours, dataset, plan.load, sideLogs, progress);
      const conversation: ConversationResults = { dataset, coldOpen, readFloor, ...sideBySide };
      if (dataset !== main) return { conversation, mainOnly: undefined };
      progress(`${label}: first page with response validation`);
      const validatedFirstPage = await measureWithResponseValidation(dataset, serverOptions(`ours-validating-${label}`), plan.load);
      progress(`${label}: ${plan.appendCount} events appended under load`);
      const append = await measureAppendUnderLoad(ours, dataset, {
        count: plan.appendCount,
        connections: plan.load.connections,
        timeoutMs: plan.appendTimeoutMs,
      });
      return { conversation, mainOnly: { validatedFirstPage, append } };
    });
    conversations.push(measured.conversation);
    mainOnly ??= measured.mainOnly;
  }
  if (!mainOnly) throw new Error('The main conversation was not measured.');
  bringIntoPageCache(main.directory);
  const installedPackage = await measureInstalledPackage(
    main,
    { repoRoot: options.repoRoot, dataDirectory: options.dataDirectory, server: serverOptions },
    plan.load,
    progress,
  ).catch((error: unknown) => ({ notMeasured: error instanceof Error ? error.message : String(error) }));
  progress(`small conversation while ${main.spec.label} loads`);
  bringIntoPageCache(main.directory);
  const smallWait = await withServer(startOurs('ours-small-wait'), (server) =>
    measureSmallWaitDuringOpen(server, main, small, plan.smallWaitClients),
  );
  const todaysShape = await measureTodaysShapeOpen(
    main.spec,
    { repoRoot: options.repoRoot, dataDirectory: options.dataDirectory, nodeFlags: options.serverNodeFlags },
    progress,
  );
  const scaling =
    plan.mode === 'full'
      ? await measureScaling({ dataDirectory: options.dataDirectory, serverOptions, randomSeconds: SCALING_RANDOM_SECONDS }, progress)
      : undefined;

  return {
    ...circumstances.end(plan),
    commit,
    conversations,
    ...mainOnly,
    smallWait,
    todaysShape,
    installedPackage,
    scaling,
  };
}

/** How long random requests run across the 1000 conversations under the memory budget. */
export const SCALING_RANDOM_SECONDS = 10;
