import type { CommandResult, CommandRunner } from './command-runner';
import { fail, pass, warn, type Check } from './report';

/** The storage classes of the current kubectl context, or why they could not be listed. */
export type StorageClassListing = { kind: 'listed'; names: string[] } | { kind: 'kubectl-absent' } | { kind: 'kubectl-failed'; reason: string };

/** Lists storage classes with `kubectl get storageclass -o name` on the current context. */
export async function listStorageClasses(run: CommandRunner): Promise<StorageClassListing> {
  const result = await run('kubectl', ['get', 'storageclass', '-o', 'name']);
  if (result.kind === 'not-found') return { kind: 'kubectl-absent' };
  if (result.kind !== 'exited' || result.code !== 0) return { kind: 'kubectl-failed', reason: describeFailure(result) };
  const names = result.stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => line.slice(line.lastIndexOf('/') + 1));
  return { kind: 'listed', names };
}

function describeFailure(result: CommandResult): string {
  if (result.kind === 'timed-out') return 'it did not finish in time';
  if (result.kind === 'not-found') return 'it is not installed';
  // kubectl logs klog noise first and ends with the one-line summary a person would read.
  const lastLine = result.stderr.trim().split('\n').at(-1)?.trim() ?? '';
  return lastLine === '' ? `it exited with code ${result.code}` : lastLine;
}

const HELM_CHECK = 'helm version';
const MINIMUM_HELM_MAJOR = 4;

/**
 * Checks `helm version --short` reports v4 or later, which the chart's registry install needs; helm
 * missing from PATH is a warning that the version was not checked, since the doctor may run on a
 * machine other than the one that installs.
 */
export async function checkHelmVersion(run: CommandRunner): Promise<Check> {
  const result = await run('helm', ['version', '--short']);
  if (result.kind === 'not-found') {
    return warn(HELM_CHECK, 'helm is not on PATH, so its version was not checked', `Install with Helm ${MINIMUM_HELM_MAJOR} or later.`);
  }
  if (result.kind !== 'exited' || result.code !== 0) {
    return warn(
      HELM_CHECK,
      `helm version --short failed: ${describeFailure(result)}`,
      `Make sure helm runs and is version ${MINIMUM_HELM_MAJOR} or later.`,
    );
  }
  const version = result.stdout.trim();
  const major = /^v?(\d+)\./.exec(version)?.[1];
  if (major === undefined) {
    return warn(HELM_CHECK, `could not read a version from "${version}"`, `Make sure helm is version ${MINIMUM_HELM_MAJOR} or later.`);
  }
  if (Number(major) < MINIMUM_HELM_MAJOR) {
    return fail(
      HELM_CHECK,
      `helm ${version} is older than the required v${MINIMUM_HELM_MAJOR}`,
      `Upgrade helm to v${MINIMUM_HELM_MAJOR} or later; the chart's registry install needs it.`,
    );
  }
  return pass(HELM_CHECK, `helm ${version}`);
}
