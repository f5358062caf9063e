/**
 * Python tools the tests run beside ours (the reference agent server, Schemathesis), each in a
 * virtual environment of its own under an ignored cache folder. An environment is built once per
 * pinned toolset and interpreter version and reused by every later run; nothing is fetched at run
 * time beyond the packages. Several jest workers may ask for the same toolset at once: one
 * installs under a lock while the others wait for it.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { toolsCacheFolder } from '../tools-cache';
import { withFolderLock } from '../process/folder-lock';

const run = promisify(execFile);

const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

export interface PythonToolset {
  /** Names the environment's folder and every message about it. */
  readonly name: string;
  /** The lowest interpreter the toolset runs on, as [major, minor]. */
  readonly minimumPython: readonly [number, number];
  /** What `pip install` is given: pinned requirements. */
  readonly requirements: readonly string[];
  /** A pip constraints file (every transitive package pinned), relative to the project root. */
  readonly constraintsFile?: string;
}

export interface PythonEnvironment {
  readonly toolset: PythonToolset;
  /** The environment's interpreter. */
  readonly python: string;
  /** The environment's folder. */
  readonly directory: string;
  /** A console script the environment installed, such as `schemathesis`. */
  executable(name: string): string;
}

/** Where environments live: `PYTHON_TOOLS_CACHE`, else the user's cache of test tools (dev/tools-cache.ts). */
export function pythonCacheFolder(): string {
  return process.env.PYTHON_TOOLS_CACHE || toolsCacheFolder('python');
}

interface Interpreter {
  readonly path: string;
  readonly version: readonly [number, number];
}

async function interpreterVersion(candidate: string): Promise<Interpreter | undefined> {
  try {
    const { stdout } = await run(candidate, ['-c', 'import sys, venv; print("%d.%d" % sys.version_info[:2])'], { timeout: 15_000 });
    const [major, minor] = stdout.trim().split('.').map(Number);
    if (major === undefined || minor === undefined || Number.isNaN(major) || Number.isNaN(minor)) return undefined;
    return { path: candidate, version: [major, minor] };
  } catch {
    return undefined;
  }
}

function atLeast(version: readonly [number, number], minimum: readonly [number, number]): boolean {
  return version[0] > minimum[0] || (version[0] === minimum[0] && version[1] >= minimum[1]);
}

/** `PYTHON` if set, else the newest of python3.X on PATH and pyenv's interpreters that is new enough. */
async function findInterpreter(minimum: readonly [number, number]): Promise<Interpreter | undefined> {
  const explicit = process.env.PYTHON;
  if (explicit) {
    const found = await interpreterVersion(explicit);
    return found && atLeast(found.version, minimum) ? found : undefined;
  }
  const candidates = ['python3.14', 'python3.13', 'python3.12', 'python3'];
  const pyenvRoot = process.env.PYENV_ROOT ?? path.join(os.homedir(), '.pyenv');
  const pyenvVersions = path.join(pyenvRoot, 'versions');
  if (existsSync(pyenvVersions)) {
    for (const version of readdirSync(pyenvVersions)) candidates.push(path.join(pyenvVersions, version, 'bin', 'python3'));
  }
  const found = (await Promise.all(candidates.map(interpreterVersion))).filter(
    (interpreter): interpreter is Interpreter => interpreter !== undefined && atLeast(interpreter.version, minimum),
  );
  found.sort((a, b) => b.version[0] - a.version[0] || b.version[1] - a.version[1]);
  return found[0];
}

function environmentKey(toolset: PythonToolset, interpreter: Interpreter): string {
  const hash = createHash('sha256');
  hash.update(interpreter.version.join('.'));
  for (const requirement of toolset.requirements) hash.update(`\n${requirement}`);
  if (toolset.constraintsFile) hash.update(readFileSync(path.join(PROJECT_ROOT, toolset.constraintsFile)));
  return `${toolset.name}-py${interpreter.version.join('')}-${hash.digest('hex').slice(0, 12)}`;
}

function environmentAt(toolset: PythonToolset, directory: string): PythonEnvironment {
  return {
    toolset,
    directory,
    python: path.join(directory, 'bin', 'python'),
    executable: (name) => path.join(directory, 'bin', name),
  };
}

const READY_MARKER = 'ready.json';

async function install(toolset: PythonToolset, interpreter: Interpreter, directory: string, log: (line: string) => void): Promise<void> {
  rmSync(directory, { recursive: true, force: true });
  log(`${toolset.name}: creating a Python ${interpreter.version.join('.')} environment in ${directory}`);
  await run(interpreter.path, ['-m', 'venv', directory], { timeout: 120_000 });
  const pip = [path.join(directory, 'bin', 'python'), '-m', 'pip', 'install', '--disable-pip-version-check', '--quiet'];
  if (toolset.constraintsFile) pip.push('--constraint', path.join(PROJECT_ROOT, toolset.constraintsFile));
  pip.push(...toolset.requirements);
  log(`${toolset.name}: pip install ${toolset.requirements.join(' ')}`);
  const started = Date.now();
  try {
    const [command, ...args] = pip as [string, ...string[]];
    await run(command, args, { timeout: 900_000, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? '').trim();
    const last = stderr.split('\n').filter(Boolean).slice(-1)[0] ?? String(error);
    throw new Error(`${toolset.name}: pip could not install ${toolset.requirements.join(' ')} (${last}); the Python tools need PyPI to be reachable`);
  }
  writeFileSync(path.join(directory, READY_MARKER), JSON.stringify({ requirements: toolset.requirements, python: interpreter.version }));
  log(`${toolset.name}: installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

/**
 * The toolset's environment, installed first if this checkout has none for its pins. Rejects
 * with one line that names what to install when no suitable Python is found or pip fails.
 */
export async function pythonEnvironment(
  toolset: PythonToolset,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<PythonEnvironment> {
  const interpreter = await findInterpreter(toolset.minimumPython);
  if (!interpreter) {
    const wanted = toolset.minimumPython.join('.');
    throw new Error(
      `${toolset.name} needs Python >= ${wanted} with venv: install python${wanted} and python${wanted}-venv (apt-get or pyenv), or set PYTHON=/path/to/python${wanted}`,
    );
  }
  const cache = pythonCacheFolder();
  mkdirSync(cache, { recursive: true });
  const directory = path.join(cache, environmentKey(toolset, interpreter));
  const environment = environmentAt(toolset, directory);
  if (existsSync(path.join(directory, READY_MARKER))) return environment;
  return withFolderLock(
    `${directory}.lock`,
    async () => {
      if (!existsSync(path.join(directory, READY_MARKER))) await install(toolset, interpreter, directory, log);
      return environment;
    },
    1000,
  );
}
