/**
 * Two compiled servers measured beside each other in one run: this checkout's and another
 * build of the package (the installed tarball, or another commit built in a worktree). They
 * take turns, round after round, the order swapped every round (this checkout first, then the
 * other first, ...), so that neither always runs right after the other: on a shared machine a
 * disturbance in one round shows as a disagreement between rounds, and the ratios of the
 * same round compare the two under the same machine state. In its turn each build is started
 * fresh, opens the conversation (the cold open and the memory the moment its first page has
 * arrived), then has its first page and, when asked, a page at another cursor on every request
 * put under load; then it is stopped, so only one of them holds memory and takes CPU at a time.
 * When asked (`warmUp`), each build first has a turn that is not measured: it opens the
 * conversation and runs until its CPU has rested, so a build that keeps an index on disk
 * (the SQLite store) is measured on a complete one, as a server that ran before is, and not
 * while it still fills it behind its first answers.
 */
import type { Dataset } from './datasets';
import { spreadEventIds } from './datasets';
import { type ColdOpenFigures, measureColdOpen } from './cold-open';
import { getOk } from './http-get';
import { bringIntoPageCache } from './read-floor';
import { ROTATING_CURSORS, type Scenario, searchScenarios } from './scenarios';
import { type OurServerOptions, type ServerProcess, processCpuMs, spawnOurServer, waitUntilAnswering, withServer } from './server-process';
import { type LoadShape, type ServerLoadFigures, measure } from './side-by-side';

export const SIDE_BY_SIDE_ROUNDS = 3;

/** What one build's turn measured. */
export interface BuildTurnFigures {
  readonly coldOpen: ColdOpenFigures;
  readonly firstPage: ServerLoadFigures;
  /** A page of 100 at another cursor on every request; undefined when not asked for. */
  readonly rotatingPage: ServerLoadFigures | undefined;
  /** The first page's bytes, to say whether the two builds answered alike. */
  readonly firstPageBody: Buffer;
}

export interface BuildsSideBySideFigures {
  /** One entry per round; odd rounds measured this checkout first, even ones the other build first. */
  readonly rounds: readonly { readonly checkout: BuildTurnFigures; readonly other: BuildTurnFigures }[];
  /** Per build, seconds from the spawn of its warm-up turn until its CPU rested; undefined without one. */
  readonly warmUp?: { readonly checkout: number; readonly other: number };
}

export interface BuildsSideBySideOptions {
  /** The other build: a folder holding the compiled package (dist/src/cli/start.js). */
  readonly otherRoot: string;
  /** Names the other build in process labels and logs, e.g. "installed" or "904d75e". */
  readonly otherLabel: string;
  readonly server: (label: string) => Omit<OurServerOptions, 'validateResponses'>;
  readonly rotatingPage: boolean;
  readonly rounds?: number;
  /** Before the rounds, a turn of each build that opens the conversation and runs until its CPU rests, not measured. */
  readonly warmUp?: boolean;
}

/** A build has rested when its CPU grew by less than this share of a core over REST_WINDOW_MS. */
const REST_CPU_SHARE = 0.05;
const REST_WINDOW_MS = 2000;
/** A warm-up that has not rested by then ends anyway; the report gives its time. */
const WARM_UP_LIMIT_MS = 600_000;

export async function measureBuildsSideBySide(
  dataset: Dataset,
  options: BuildsSideBySideOptions,
  shape: LoadShape,
  progress: (line: string) => void,
): Promise<BuildsSideBySideFigures> {
  const scenarios = searchScenarios(dataset, spreadEventIds(dataset, ROTATING_CURSORS));
  const firstPage = scenarioNamed(scenarios, 'first-page');
  const rotating = options.rotatingPage ? scenarioNamed(scenarios, 'first-page-any-cursor') : undefined;
  const label = dataset.spec.label;
  const turn = (build: 'checkout' | 'other', round: number): Promise<BuildTurnFigures> => {
    const name = `${build === 'checkout' ? 'checkout' : options.otherLabel}-${label}-round-${round}`;
    const serverOptions = options.server(name);
    bringIntoPageCache(dataset.directory);
    return withServer(
      spawnOurServer(name, { ...serverOptions, ...(build === 'other' ? { repoRoot: options.otherRoot } : {}), validateResponses: false }),
      async (server) => {
        const coldOpen = await measureColdOpen(server, dataset);
        const firstPageBody = await checkedBody(server.baseUrl, firstPage);
        if (rotating) await checkedBody(server.baseUrl, rotating);
        return {
          coldOpen,
          firstPage: await measure(server, [firstPage.path], shape),
          rotatingPage: rotating ? await measure(server, rotating.rotatingPaths ?? [rotating.path], shape) : undefined,
          firstPageBody,
        };
      },
    );
  };
  let warmUp: BuildsSideBySideFigures['warmUp'];
  if (options.warmUp) {
    const warm = (build: 'checkout' | 'other'): Promise<number> => {
      const name = `${build === 'checkout' ? 'checkout' : options.otherLabel}-${label}-warm-up`;
      bringIntoPageCache(dataset.directory);
      return withServer(
        spawnOurServer(name, { ...options.server(name), ...(build === 'other' ? { repoRoot: options.otherRoot } : {}), validateResponses: false }),
        async (server) => {
          await waitUntilAnswering(server);
          await checkedBody(server.baseUrl, firstPage);
          return untilRested(server);
        },
      );
    };
    progress(`  ${label}: a warm-up turn of each build, until its CPU rests`);
    warmUp = { checkout: await warm('checkout'), other: await warm('other') };
  }
  const rounds = [];
  const total = options.rounds ?? SIDE_BY_SIDE_ROUNDS;
  for (let round = 1; round <= total; round++) {
    const checkoutFirst = round % 2 === 1;
    progress(
      `  ${label}, round ${round} of ${total}: ${checkoutFirst ? `checkout then ${options.otherLabel}` : `${options.otherLabel} then checkout`}`,
    );
    if (checkoutFirst) {
      const checkout = await turn('checkout', round);
      rounds.push({ checkout, other: await turn('other', round) });
    } else {
      const other = await turn('other', round);
      rounds.push({ checkout: await turn('checkout', round), other });
    }
  }
  return { rounds, warmUp };
}

/** Waits until the server's CPU has rested over a whole window; seconds since its spawn. */
async function untilRested(server: ServerProcess): Promise<number> {
  const deadline = performance.now() + WARM_UP_LIMIT_MS;
  let before = processCpuMs(server.pid);
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, REST_WINDOW_MS));
    const now = processCpuMs(server.pid);
    if (now - before < REST_CPU_SHARE * REST_WINDOW_MS) break;
    before = now;
  }
  return (performance.now() - server.spawnedAt) / 1000;
}

function scenarioNamed(scenarios: readonly Scenario[], name: Scenario['name']): Scenario {
  const scenario = scenarios.find((candidate) => candidate.name === name);
  if (!scenario) throw new Error(`The bench has no ${name} scenario.`);
  return scenario;
}

/** A benchmark of wrong answers measures nothing: each build's answer is checked before it is loaded. */
async function checkedBody(baseUrl: string, scenario: Scenario): Promise<Buffer> {
  const response = await getOk(baseUrl + scenario.path);
  try {
    scenario.check(response.body);
  } catch (error) {
    throw new Error(`${scenario.name} (${scenario.path}) got a wrong answer from ${baseUrl}: ${(error as Error).message}`);
  }
  return response.body;
}
