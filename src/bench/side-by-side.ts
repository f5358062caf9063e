/**
 * Each search scenario measured on our server and, right after, on the baseline serving the
 * same bytes, so both see the same machine state and every figure can be given as a ratio.
 */
import type { Dataset } from './datasets';
import { getOk } from './http-get';
import { type LoadFigures, runLoad } from './load';
import { type Scenario, searchScenarios } from './scenarios';
import { type BaselineRoute, type ServerProcess, processCpuMs, processMemory, startBaseline } from './server-process';

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

/**
 * Fetches every scenario once from our server (checking the answer), starts the baseline
 * with those bytes, then loads our server and the baseline in turn, scenario by scenario.
 * Also returns how long the baseline process took to listen and the memory it ended with.
 */
export async function runSideBySide(
  ours: ServerProcess,
  dataset: Dataset,
  shape: LoadShape,
  baselineStart: { repoRoot: string; logFile: string },
  progress: (line: string) => void,
): Promise<{ scenarios: ScenarioResult[]; baselineReadyMs: number; baselineResidentBytes: number }> {
  const scenarios = searchScenarios(dataset);
  const routes = await Promise.all(scenarios.map((scenario) => fetchCheckedRoute(ours, scenario)));
  const baseline = await startBaseline(baselineStart.repoRoot, routes, baselineStart.logFile);
  try {
    await expectSameBytes(baseline, routes[0]!);
    const results: ScenarioResult[] = [];
    for (const [i, scenario] of scenarios.entries()) {
      progress(`  ${dataset.spec.label} ${scenario.name}`);
      const route = routes[i]!;
      const oursFigures = await measure(ours, route.path, shape);
      const baselineFigures = await measure(baseline, route.path, shape);
      results.push({
        scenario: { name: scenario.name, description: scenario.description },
        items: itemCount(route.body),
        bodyBytes: route.body.length,
        ours: oursFigures,
        baseline: baselineFigures,
      });
    }
    return { scenarios: results, baselineReadyMs: baseline.readyMs, baselineResidentBytes: processMemory(baseline.pid).residentBytes };
  } finally {
    await baseline.stop();
  }
}

async function fetchCheckedRoute(server: ServerProcess, scenario: Scenario): Promise<BaselineRoute> {
  const response = await getOk(server.baseUrl + scenario.path);
  try {
    scenario.check(response.body);
  } catch (error) {
    throw new Error(`Scenario ${scenario.name} (${scenario.path}) got a wrong answer: ${(error as Error).message}`);
  }
  return { path: scenario.path, contentType: response.contentType ?? 'application/json', body: response.body };
}

async function expectSameBytes(baseline: ServerProcess, route: BaselineRoute): Promise<void> {
  const response = await getOk(baseline.baseUrl + route.path);
  if (!response.body.equals(route.body)) throw new Error(`The baseline answered ${route.path} with other bytes than our server.`);
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

/** A warm-up run, then the measured one, with the server's CPU time over the measured run. */
export async function measure(server: ServerProcess, urlPath: string, shape: LoadShape): Promise<ServerLoadFigures> {
  const url = server.baseUrl + urlPath;
  await runLoad({ url, connections: shape.connections, durationSeconds: shape.warmupSeconds });
  const cpuBefore = processCpuMs(server.pid);
  // Failures are reported beside the figures rather than thrown: a server that fails under load is a result too.
  const figures = await runLoad({ url, connections: shape.connections, durationSeconds: shape.durationSeconds });
  const cpuMs = processCpuMs(server.pid) - cpuBefore;
  return { ...figures, cpuMicrosPerRequest: (cpuMs * 1000) / figures.successes };
}

function itemCount(body: Buffer): number {
  return (JSON.parse(body.toString('utf8')) as { items: unknown[] }).items.length;
}
