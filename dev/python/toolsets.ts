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

export const PHOENIX_VERSION = '20.26.1';

/**
 * Arize Phoenix, an observability tool many agent users open their traces in: the trace export
 * is proven by pushing to it and reading the spans back. It also brings `opentelemetry-proto`,
 * which decodes what our protobuf encoder writes. A large install (a web app and its database
 * layer), built once into the cache like the others.
 */
export const PHOENIX: PythonToolset = {
  name: 'arize-phoenix',
  minimumPython: [3, 10],
  requirements: [`arize-phoenix==${PHOENIX_VERSION}`],
  constraintsFile: 'dev/python/phoenix-constraints.txt',
};

export const HARBOR_VERSION = '0.25.0';

/** Harbor, whose models and validator define ATIF trajectories; the trajectory export is checked with them. */
export const HARBOR: PythonToolset = {
  name: 'harbor',
  minimumPython: [3, 12],
  requirements: [`harbor==${HARBOR_VERSION}`],
  constraintsFile: 'dev/python/harbor-constraints.txt',
};

export const PYTHON_TOOLSETS: readonly PythonToolset[] = [REFERENCE_SERVER, SCHEMATHESIS, PHOENIX, HARBOR];
