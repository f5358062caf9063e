/**
 * The command line of `agent-server-contract`, as data: the flags for node:util parseArgs
 * and their interpretation into run options, with messages that name the flag and say
 * what to pass. Reading the allow file and the manifest happens here too, so every
 * "bad arguments" case (exit 2) is decided before a request is sent.
 */
import { readAllowList } from './allow-list';
import { readFixtureManifest } from './fixture-manifest';
import { DEFAULT_RUN_OPTIONS, type RunOptions } from './run';
import { LEVELS, type Level } from './types';

export const CONTRACT_FLAGS = {
  'base-url': { type: 'string' },
  'conversation-id': { type: 'string' },
  level: { type: 'string' },
  junit: { type: 'string' },
  json: { type: 'string' },
  allow: { type: 'string' },
  'session-api-key': { type: 'string' },
  fixture: { type: 'string' },
  compare: { type: 'string' },
  seed: { type: 'string' },
  runs: { type: 'string' },
  'max-requests': { type: 'string' },
  'timeout-ms': { type: 'string' },
  only: { type: 'string', multiple: true },
  contract: { type: 'string' },
  'changed-since': { type: 'string' },
  'require-coverage': { type: 'boolean' },
  'require-implemented': { type: 'boolean' },
  replay: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const CONTRACT_USAGE = `Usage: npm run contract -- [run] --base-url URL --conversation-id ID [options]
       agent-server-contract [run] --base-url URL --conversation-id ID [options]
       agent-server-contract [run] --replay FILE.har --base-url URL [--session-api-key KEY] [--junit FILE] [--json FILE]

Checks an agent server's event search (GET only) against the seed contract and the
reference server's behaviour, and prints what passed and what failed, with a curl line
for each failure.

Options:
  --base-url URL            the server, e.g. http://127.0.0.1:8000 (required)
  --conversation-id ID      a conversation with events on it (required unless --fixture)
  --level seed|reference|both   which checks (default both, reported separately)
  --fixture MANIFEST        the manifest the fixture command wrote: also check exact results
  --compare URL2            send every request to a second server too; report differences
  --allow FILE              known divergences: a JSON or YAML list of {id, reason}
  --junit FILE              write JUnit XML (one testsuite per level)
  --json FILE               write the full result as JSON
  --session-api-key KEY     sent as X-Session-API-Key (or set SESSION_API_KEY); never printed
  --seed N                  fast-check seed for the property checks (default: random, printed)
  --runs N                  generated queries per property check (default ${DEFAULT_RUN_OPTIONS.runs})
  --max-requests N          request budget of the run (default ${DEFAULT_RUN_OPTIONS.maxRequests})
  --timeout-ms N            per-request timeout (default ${DEFAULT_RUN_OPTIONS.timeoutMs})
  --only PREFIX             only checks whose id starts with PREFIX (repeatable)
  --contract FILE|URL       judge with this OpenAPI document (YAML or JSON) instead of the
                            bundled openapi.yaml: test an edited contract without rebuilding
  --changed-since OLD       only what touches the operations diff OLD reports changed
  --require-coverage        fail when a declared status (not 5xx), parameter or event kind
                            was never exercised
  --require-implemented     an operation the server does not have fails the run instead of
                            being reported as not implemented
  --replay FILE.har         send each request recorded in FILE.har (proxy --record, or a
                            browser's HAR 1.2) to --base-url instead, and judge each answer by
                            the contract and against the recorded one (status, JSON body); the
                            session key is --session-api-key's, never one from the file
  -h, --help                show this help

Exit status: 0 every required check passed; 1 a check failed; 2 the kit could not run
(bad arguments, server unreachable, conversation missing or empty).

Other commands (each with --help):
  run ...                         the same as without a command: a run, or --replay
  proxy --target URL [--port P] [--record FILE.har]   check real traffic between a client and a server
  diff OLD NEW                    what changed between two versions of the contract, and whom it breaks
  fixture --out DIR               write a generated conversation and the manifest --fixture reads
`;

type BooleanFlag = 'help' | 'require-coverage' | 'require-implemented';

export type ContractFlagValues = Partial<Record<Exclude<keyof typeof CONTRACT_FLAGS, BooleanFlag | 'only'>, string>> &
  Partial<Record<BooleanFlag, boolean>> & { only?: string[] };

export interface ContractInvocation {
  run: RunOptions;
  /** `--contract`: read (and fetched) by the CLI before the run; the bundled contract when absent. */
  contractSource?: string;
  /** `--changed-since`: the old contract's file, read with the contract. */
  changedSince?: string;
  junitFile?: string;
  jsonFile?: string;
}

/** `--replay`: what a replay needs, and nothing of a run's. */
export interface ReplayInvocation {
  file: string;
  baseUrl: string;
  sessionApiKey?: string;
  timeoutMs: number;
  contractSource?: string;
  allow?: RunOptions['allow'];
  junitFile?: string;
  jsonFile?: string;
}

/** The flags of a run that mean nothing to a replay: given with --replay, they are refused rather than ignored. */
const RUN_ONLY_FLAGS = [
  'conversation-id',
  'level',
  'fixture',
  'compare',
  'seed',
  'runs',
  'max-requests',
  'only',
  'changed-since',
  'require-coverage',
  'require-implemented',
] as const;

export type InterpretedContractFlags =
  | { kind: 'help' }
  | { kind: 'invalid'; message: string }
  | { kind: 'run'; invocation: ContractInvocation }
  | { kind: 'replay'; invocation: ReplayInvocation };

/** `env` supplies SESSION_API_KEY, so the key need not appear in a process listing. */
export function interpretContractFlags(
  values: ContractFlagValues,
  env: Record<string, string | undefined>,
  randomSeed: () => number,
): InterpretedContractFlags {
  if (values.help) return { kind: 'help' };
  const baseUrl = values['base-url'];
  if (!baseUrl) return invalid('--base-url is required: the agent server to check, e.g. --base-url http://127.0.0.1:8000');
  if (!isHttpUrl(baseUrl)) return invalid(`--base-url must be an http(s) URL, got ${JSON.stringify(baseUrl)}; e.g. --base-url http://127.0.0.1:8000`);
  if (values.compare !== undefined && !isHttpUrl(values.compare))
    return invalid(`--compare must be an http(s) URL, got ${JSON.stringify(values.compare)}`);
  if (values.replay !== undefined) return interpretReplay(values.replay, baseUrl, values, env);

  const levels = levelsOf(values.level ?? 'both');
  if (!levels) return invalid(`--level must be seed, reference or both, got ${JSON.stringify(values.level)}`);
  const numbers = {
    seed: wholeNumber(values.seed, randomSeed(), 0),
    runs: wholeNumber(values.runs, DEFAULT_RUN_OPTIONS.runs, 1),
    maxRequests: wholeNumber(values['max-requests'], DEFAULT_RUN_OPTIONS.maxRequests, 50),
    timeoutMs: wholeNumber(values['timeout-ms'], DEFAULT_RUN_OPTIONS.timeoutMs, 100),
  };
  if (numbers.seed === undefined) return invalid(`--seed must be a whole number, got ${JSON.stringify(values.seed)}`);
  if (numbers.runs === undefined || numbers.runs > 1000)
    return invalid(`--runs must be a whole number from 1 to 1000, got ${JSON.stringify(values.runs)}`);
  if (numbers.maxRequests === undefined)
    return invalid(`--max-requests must be a whole number of at least 50, got ${JSON.stringify(values['max-requests'])}`);
  if (numbers.timeoutMs === undefined)
    return invalid(`--timeout-ms must be a whole number of at least 100, got ${JSON.stringify(values['timeout-ms'])}`);

  let manifest: RunOptions['manifest'];
  if (values.fixture !== undefined) {
    const read = readFixtureManifest(values.fixture);
    if (!read.ok) return invalid(read.message);
    manifest = read.manifest;
  }
  const conversationId = values['conversation-id'] ?? manifest?.conversationId;
  if (!conversationId) return invalid('--conversation-id is required (or --fixture MANIFEST, which names the conversation)');

  const shared = allowAndSessionKey(values, env);
  if ('message' in shared) return invalid(shared.message);
  const { allow, sessionApiKey } = shared;

  const run: RunOptions = {
    ...DEFAULT_RUN_OPTIONS,
    baseUrl,
    conversationId,
    levels,
    seed: numbers.seed,
    runs: numbers.runs,
    maxRequests: numbers.maxRequests,
    timeoutMs: numbers.timeoutMs,
    ...(allow ? { allow } : {}),
    ...(manifest ? { manifest } : {}),
    ...(sessionApiKey !== undefined ? { sessionApiKey } : {}),
    ...(values.compare !== undefined ? { compareUrl: values.compare } : {}),
    ...(values.only ? { only: values.only } : {}),
    ...(values['require-coverage'] ? { requireCoverage: true } : {}),
    ...(values['require-implemented'] ? { requireImplemented: true } : {}),
  };
  return {
    kind: 'run',
    invocation: {
      run,
      ...(values.contract !== undefined ? { contractSource: values.contract } : {}),
      ...(values['changed-since'] !== undefined ? { changedSince: values['changed-since'] } : {}),
      ...(values.junit !== undefined ? { junitFile: values.junit } : {}),
      ...(values.json !== undefined ? { jsonFile: values.json } : {}),
    },
  };
}

/** What a run and a replay both take: the allow list (read now, so a bad file is named before anything is sent) and the session key. */
function allowAndSessionKey(
  values: ContractFlagValues,
  env: Record<string, string | undefined>,
): { allow: RunOptions['allow'] | undefined; sessionApiKey: string | undefined } | { message: string } {
  let allow: RunOptions['allow'];
  if (values.allow !== undefined) {
    const read = readAllowList(values.allow);
    if (!read.ok) return { message: read.message };
    allow = read.entries;
  }
  return { allow, sessionApiKey: values['session-api-key'] ?? (env['SESSION_API_KEY'] || undefined) };
}

function interpretReplay(
  file: string,
  baseUrl: string,
  values: ContractFlagValues,
  env: Record<string, string | undefined>,
): InterpretedContractFlags {
  const runOnly = RUN_ONLY_FLAGS.filter((flag) => values[flag] !== undefined);
  if (runOnly.length > 0)
    return invalid(
      `${runOnly.map((flag) => `--${flag}`).join(', ')} ${runOnly.length === 1 ? 'does' : 'do'} not apply to --replay, which sends the recorded requests as they are; leave ${runOnly.length === 1 ? 'it' : 'them'} out`,
    );
  if (file.trim() === '') return invalid('--replay needs a HAR file, e.g. --replay session.har (as `proxy --record session.har` writes)');
  const timeoutMs = wholeNumber(values['timeout-ms'], DEFAULT_RUN_OPTIONS.timeoutMs, 100);
  if (timeoutMs === undefined) return invalid(`--timeout-ms must be a whole number of at least 100, got ${JSON.stringify(values['timeout-ms'])}`);
  const shared = allowAndSessionKey(values, env);
  if ('message' in shared) return invalid(shared.message);
  const { allow, sessionApiKey } = shared;
  return {
    kind: 'replay',
    invocation: {
      file,
      baseUrl,
      timeoutMs,
      ...(sessionApiKey !== undefined ? { sessionApiKey } : {}),
      ...(allow ? { allow } : {}),
      ...(values.contract !== undefined ? { contractSource: values.contract } : {}),
      ...(values.junit !== undefined ? { junitFile: values.junit } : {}),
      ...(values.json !== undefined ? { jsonFile: values.json } : {}),
    },
  };
}

function invalid(message: string): InterpretedContractFlags {
  return { kind: 'invalid', message };
}

/** Whether a flag's value is an http(s) URL; shared by every command of the kit. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function levelsOf(text: string): Level[] | undefined {
  if (text === 'both') return [...LEVELS];
  return (LEVELS as readonly string[]).includes(text) ? [text as Level] : undefined;
}

function wholeNumber(text: string | undefined, fallback: number, minimum: number): number | undefined {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text.trim())) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= minimum ? value : undefined;
}
