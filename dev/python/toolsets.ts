/**
 * The pinned Python toolsets the project tests with. Bumping a pin here (and its constraints file,
 * written by `pip freeze` in a fresh environment) builds a new environment on the next run.
 */
import type { PythonToolset } from './environment';

/** The version of the OpenHands agent server our server is compared with. */
export const REFERENCE_VERSION = '1.58.2';

/**
 * The reference agent server. Its package imports `openhands.tools` without declaring it and needs
 * the SDK of its own release, so all three are pinned to one version; every other package is held
 * to the versions it was tested with by the constraints file.
 */
export const REFERENCE_SERVER: PythonToolset = {
  name: 'openhands-agent-server',
  minimumPython: [3, 12],
  requirements: [`openhands-agent-server==${REFERENCE_VERSION}`, `openhands-sdk==${REFERENCE_VERSION}`, `openhands-tools==${REFERENCE_VERSION}`],
  constraintsFile: 'dev/python/reference-constraints.txt',
};

export const SCHEMATHESIS_VERSION = '4.32.5';

/** Schemathesis, the contract tester most of the field uses, run against our server and the reference. */
export const SCHEMATHESIS: PythonToolset = {
  name: 'schemathesis',
  minimumPython: [3, 10],
  requirements: [`schemathesis==${SCHEMATHESIS_VERSION}`],
};

export const PYTHON_TOOLSETS: readonly PythonToolset[] = [REFERENCE_SERVER, SCHEMATHESIS];
