/**
 * Each search scenario measured on our server and, right after, on the baseline serving the
 * same bytes, so both see the same machine state and every figure can be given as a ratio.
 * The first page is also measured on the framework floor (framework-floor-server.ts): our
 * application serving the same bytes without the store and the search.
 */
import { type Dataset, spreadEventIds } from './datasets';
import { getOk } from './http-get';
import { type LoadFigures, runLoad } from './load';
import { ROTATING_CURSORS, type Scenario, searchScenarios } from './scenarios';
import type { PrecomputedRoute } from './precomputed-server';
import { processMemory } from '../process/server-process';
import { type ServerProcess, processCpuMs, startPrecomputedServer } from './server-process';

export interface LoadShape {
  readonly connections: number;
  readonly durationSeconds: number;
  /** A discarded run before each measured one, so neither server is measured while the JIT warms up. */
  readonly warmupSeconds: number;
}

export interface ScenarioResult {
  readonly scenario: Pick<Scenario, 'name' | 'description'>;
  readonly items: number;
  readonly bodyBytes: number;
  readonly ours: ServerLoadFigures;
  readonly baseline: ServerLoadFigures;
}

export interface SideBySideResults {
  readonly scenarios: ScenarioResult[];
  /** The first page on the framework floor, measured right after ours and the baseline's. */
  readonly firstPageFloor: ServerLoadFigures;
  /** The first page on Express alone, measured right after the framework floor. */
  readonly firstPageExpress: ServerLoadFigures;
  /** Spawn to listening of the baseline process. */
  readonly baselineReadyMs: number;
  /** The baseline process's memory at the end. */
  readonly baselineResidentBytes: number;
}

/**
 * Fetches every scenario once from our server (checking the answer), starts the baseline,
 * the framework floor and Express alone with those bytes, then loads our server and the
 * baseline in turn, scenario by scenario, and the other two after them on the first page.
 */
export async function runSideBySide(
  ours: ServerProcess,
  dataset: Dataset,
  shape: LoadShape,
  logs: { repoRoot: string; baselineLogFile: string; floorLogFile: string; expressLogFile: string },
  progress: (line: string) => void,
): Promise<SideBySideResults> {
  const scenarios = searchScenarios(dataset, spreadEventIds(dataset, ROTATING_CURSORS));
  const routes = await Promise.all(scenarios.map((scenario) => fetchCheckedRoute(ours, scenario)));
  // The rotating scenario's other pages, fetched and checked alike, so the baseline can answer each.
  const rotated = await Promise.all(
    scenarios.flatMap((scenario) =>
      (scenario.rotatingPaths ?? []).slice(1).map((rotatingPath) => fetchCheckedRoute(ours, { ...scenario, path: rotatingPath })),
    ),
  );
  const precomputed = [...routes, ...rotated];
  const baseline = await startPrecomputedServer('baseline', logs.repoRoot, precomputed, logs.baselineLogFile);
  const started = [baseline];
  try {
    const floor = await startPrecomputedServer('framework floor', logs.repoRoot, precomputed, logs.floorLogFile);
    started.push(floor);
    const expressAlone = await startPrecomputedServer('Express alone', logs.repoRoot, precomputed, logs.expressLogFile);
    started.push(expressAlone);
    await expectSameBytes(baseline, routes[0]!);
    await expectSameBytes(floor, routes[0]!);
    await expectSameBytes(expressAlone, routes[0]!);
    const results: ScenarioResult[] = [];
    let firstPageFloor: ServerLoadFigures | undefined;
    let firstPageExpress: ServerLoadFigures | undefined;
    for (const [i, scenario] of scenarios.entries()) {
      progress(`  ${dataset.spec.label} ${scenario.name}`);
      const route = routes[i]!;
      const paths = scenario.rotatingPaths ?? [route.path];
      const oursFigures = await measure(ours, paths, shape);
      const baselineFigures = await measure(baseline, paths, shape);
      if (scenario.name === 'first-page') {
        firstPageFloor = await measure(floor, [route.path], shape);
        firstPageExpress = await measure(expressAlone, [route.path], shape);
      }
      results.push({
        scenario: { name: scenario.name, description: scenario.description },
        items: itemCount(route.body),
        bodyBytes: route.body.length,
        ours: oursFigures,
        baseline: baselineFigures,
      });
    }
    if (!firstPageFloor || !firstPageExpress) throw new Error('The scenarios have no first page.');
    return {
      scenarios: results,
      firstPageFloor,
      firstPageExpress,
      baselineReadyMs: baseline.readyMs,
      baselineResidentBytes: processMemory(baseline.pid).residentBytes,
    };
  } finally {
    await Promise.all(started.map((server) => server.stop()));
  }
}

async function fetchCheckedRoute(server: ServerProcess, scenario: Scenario): Promise<PrecomputedRoute> {
  const response = await getOk(server.baseUrl + scenario.path);
  try {
    scenario.check(response.body);
  } catch (error) {
    throw new Error(`Scenario ${scenario.name} (${scenario.path}) got a wrong answer: ${(error as Error).message}`);
  }
  return { path: scenario.path, contentType: response.contentType ?? 'application/json', body: response.body };
}

async function expectSameBytes(server: ServerProcess, route: PrecomputedRoute): Promise<void> {
  const response = await getOk(server.baseUrl + route.path);
  if (!response.body.equals(route.body)) throw new Error(`The ${server.label} server answered ${route.path} with other bytes than our server.`);
}

/** Load figures plus what they cost the server process itself. */
export interface ServerLoadFigures extends LoadFigures {
  /**
   * CPU time of the server process per successful request, in microseconds. Unlike
   * requests per second it hardly depends on what else the machine runs, so it is the
   * steadier figure on a shared machine.
   */
  readonly cpuMicrosPerRequest: number;
}

/** A warm-up run, then the measured one, with the server's CPU time over the measured run. Several paths are gone round, one request each. */
export async function measure(server: ServerProcess, urlPaths: readonly string[], shape: LoadShape): Promise<ServerLoadFigures> {
  const url = server.baseUrl + urlPaths[0]!;
  const rotatingPaths = urlPaths.length > 1 ? urlPaths : undefined;
  await runLoad({ url, rotatingPaths, connections: shape.connections, durationSeconds: shape.warmupSeconds });
  const cpuBefore = processCpuMs(server.pid);
  // Failures are reported beside the figures rather than thrown: a server that fails under load is a result too.
  const figures = await runLoad({ url, rotatingPaths, connections: shape.connections, durationSeconds: shape.durationSeconds });
  const cpuMs = processCpuMs(server.pid) - cpuBefore;
  return { ...figures, cpuMicrosPerRequest: (cpuMs * 1000) / figures.successes };
}

function itemCount(body: Buffer): number {
  return (JSON.parse(body.toString('utf8')) as { items: unknown[] }).items.length;
}
