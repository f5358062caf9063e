import { listStorageClasses, checkHelmVersion } from './cluster-tools';
import { createCommandRunner, type CommandRunner } from './command-runner';
import { checkContextWindow, contextFigureFromFlag, discoverContextFigures } from './context-window';
import { checkHelmValues } from './helm-values';
import {
  checkBaseUrl,
  checkEndpointReached,
  checkModelHost,
  checkModelId,
  checkModelString,
  listServedModels,
  probeToolUse,
  readBaseUrl,
  type EndpointAccess,
} from './model-endpoint';
import { redactChecks, warn, type Check } from './report';
import { readValuesFile } from './values-file';

/** The three settings the agent uses to reach its model. */
export interface ModelTarget {
  model: string;
  baseUrl: string;
  apiKey: string;
}

/** What to check: the model endpoint, a Helm values file, or both. */
export interface DoctorOptions {
  model?: ModelTarget;
  contextWindow?: number;
  probeTools?: boolean;
  valuesFile?: string;
}

/** The doctor's reach into the world, injectable so tests can shorten timeouts and fake PATH. */
export interface DoctorDependencies {
  runCommand: CommandRunner;
  requestTimeoutMs: number;
  probeTimeoutMs: number;
}

/** How long to wait for each metadata request to the model server. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
/** How long to wait for the tool-use probe: a real completion on a local model can take a while. */
export const DEFAULT_PROBE_TIMEOUT_MS = 60_000;

/** The dependencies of a real run: this process's PATH and the default timeouts. */
export function defaultDependencies(): DoctorDependencies {
  return { runCommand: createCommandRunner(), requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS, probeTimeoutMs: DEFAULT_PROBE_TIMEOUT_MS };
}

/** The checklist, or an error in what was asked (an unreadable values file) that stops the run. */
export type DoctorOutcome = { ok: true; checks: Check[] } | { ok: false; error: string };

/**
 * Runs the model checks when a model target is given and the values checks when a values file is
 * given, in that order. The values file is read first, so a missing or broken file stops the run
 * before any network traffic. The API key is masked out of every check before they are returned.
 */
export async function runDoctor(options: DoctorOptions, dependencies: DoctorDependencies = defaultDependencies()): Promise<DoctorOutcome> {
  const valuesReading = options.valuesFile === undefined ? undefined : await readValuesFile(options.valuesFile);
  if (valuesReading !== undefined && !valuesReading.ok) return { ok: false, error: valuesReading.error };

  const checks: Check[] = [];
  if (options.model !== undefined) checks.push(...(await runModelChecks(options.model, options, dependencies)));
  if (valuesReading !== undefined) {
    const run = dependencies.runCommand;
    checks.push(...(await checkHelmValues(valuesReading.values, { storageClasses: () => listStorageClasses(run) })));
    checks.push(await checkHelmVersion(run));
  }
  return { ok: true, checks: options.model === undefined ? checks : redactChecks(checks, options.model.apiKey) };
}

function notChecked(name: string, reason: string): Check {
  return warn(name, `not checked: ${reason}`, 'Fix the failures above, then rerun the doctor.');
}

async function runModelChecks(target: ModelTarget, options: DoctorOptions, dependencies: DoctorDependencies): Promise<Check[]> {
  const { modelId, check: modelStringCheck } = checkModelString(target.model);
  const baseUrl = readBaseUrl(target.baseUrl);
  const checks = [modelStringCheck, checkBaseUrl(baseUrl)];
  const flagFigure = options.contextWindow === undefined ? undefined : contextFigureFromFlag(options.contextWindow);
  const unchecked = (reason: string): Check[] => [
    flagFigure === undefined ? notChecked('context window', reason) : checkContextWindow([flagFigure]),
    ...(options.probeTools === true ? [notChecked('tool use', reason)] : []),
  ];
  if (!baseUrl.ok) return [...checks, ...unchecked('the base URL is not usable')];

  checks.push(checkModelHost(baseUrl.endpoint));
  const access: EndpointAccess = { endpoint: baseUrl.endpoint, apiKey: target.apiKey, timeoutMs: dependencies.requestTimeoutMs };
  const listing = await listServedModels(access);
  if (listing.kind === 'failed') return [...checks, listing.check, ...unchecked('the endpoint did not answer GET /models')];

  const modelIdCheck = checkModelId(modelId, listing.ids);
  checks.push(checkEndpointReached(listing), modelIdCheck);
  const figures = flagFigure === undefined ? await discoverContextFigures(access, modelId, listing.body) : [flagFigure];
  checks.push(checkContextWindow(figures));
  if (options.probeTools === true) {
    checks.push(
      modelIdCheck.status === 'pass'
        ? await probeToolUse({ ...access, timeoutMs: dependencies.probeTimeoutMs }, modelId)
        : notChecked('tool use', 'the model id is not served'),
    );
  }
  return checks;
}
