import type { DoctorOptions } from './doctor';

/** The flags of `npm run doctor`, in the shape `node:util` parseArgs takes. */
export const DOCTOR_FLAGS = {
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  'context-window': { type: 'string' },
  'probe-tools': { type: 'boolean' },
  values: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The flag values parseArgs returns for {@link DOCTOR_FLAGS}. */
export interface DoctorFlags {
  model?: string;
  'base-url'?: string;
  'api-key'?: string;
  'context-window'?: string;
  'probe-tools'?: boolean;
  values?: string;
  json?: boolean;
  help?: boolean;
}

export const DOCTOR_USAGE = `Usage:
  npm run doctor -- --model openai/<id> --base-url http://<host>:<port>/v1 --api-key <key>
                    [--context-window N] [--probe-tools] [--values FILE] [--json]
  npm run doctor -- --values FILE [--json]
  (installed: agent-server-doctor with the same flags; --version prints the version)

Checks a model endpoint and/or the Helm values of an enterprise install.
Exit codes: 0 nothing failed, 1 a check failed, 2 bad arguments. See docs/doctor.md.
`;

/** What the command line asks for: the usage text, a run, or a mistake to report with exit code 2. */
export type DoctorRequest = { kind: 'help' } | { kind: 'run'; options: DoctorOptions; json: boolean } | { kind: 'invalid'; error: string };

const MODEL_FLAGS = ['model', 'base-url', 'api-key'] as const;
const VALUE_FLAGS = [...MODEL_FLAGS, 'values', 'context-window'] as const;

/**
 * Validates parsed flags into doctor options. The three model flags go together; `--values` alone is
 * enough for the values checks; `--context-window` must be a positive whole number. Each mistake
 * comes back as a message that names the flag and the fix.
 */
export function interpretFlags(flags: DoctorFlags): DoctorRequest {
  if (flags.help === true) return { kind: 'help' };
  const empty = VALUE_FLAGS.find((flag) => flags[flag] === '');
  if (empty !== undefined) return invalid(`--${empty} is empty. ${EMPTY_FLAG_FIX[empty]}`);

  const givenModelFlags = MODEL_FLAGS.filter((flag) => flags[flag] !== undefined);
  if (givenModelFlags.length > 0 && givenModelFlags.length < MODEL_FLAGS.length) {
    const missing = MODEL_FLAGS.filter((flag) => flags[flag] === undefined).map((flag) => `--${flag}`);
    return invalid(
      `--model, --base-url and --api-key go together; missing ${missing.join(', ')}. Pass all three, or only --values for the values checks.`,
    );
  }
  const hasModel = givenModelFlags.length === MODEL_FLAGS.length;
  if (!hasModel && flags.values === undefined) {
    return invalid(
      'nothing to check. Pass --model, --base-url and --api-key for the model checks, --values FILE for the Helm values checks, or both.',
    );
  }
  if (!hasModel && (flags['context-window'] !== undefined || flags['probe-tools'] === true)) {
    return invalid('--context-window and --probe-tools belong to the model checks. Pass --model, --base-url and --api-key with them.');
  }
  const contextWindow = parseContextWindow(flags['context-window']);
  if (contextWindow === null) {
    return invalid(`--context-window must be a positive whole number of tokens, such as --context-window 32768; got "${flags['context-window']}".`);
  }

  const options: DoctorOptions = { probeTools: flags['probe-tools'] === true };
  if (hasModel) options.model = { model: flags.model ?? '', baseUrl: flags['base-url'] ?? '', apiKey: flags['api-key'] ?? '' };
  if (contextWindow !== undefined) options.contextWindow = contextWindow;
  if (flags.values !== undefined) options.valuesFile = flags.values;
  return { kind: 'run', options, json: flags.json === true };
}

const EMPTY_FLAG_FIX: Record<(typeof VALUE_FLAGS)[number], string> = {
  model: 'Pass the model as openai/<id>, the id GET /v1/models lists.',
  'base-url': 'Pass the endpoint as http://<host>:<port>/v1.',
  'api-key': 'Pass the key the model server was started with, or a placeholder such as EMPTY when it checks none.',
  values: 'Pass the path of your Helm values file.',
  'context-window': 'Pass the context size in tokens, such as 32768, or leave the flag out to read it from the server.',
};

function invalid(error: string): DoctorRequest {
  return { kind: 'invalid', error };
}

/** undefined when absent, null when not a positive whole number. */
function parseContextWindow(text: string | undefined): number | undefined | null {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim())) return null;
  const tokens = Number(text.trim());
  return tokens > 0 && Number.isSafeInteger(tokens) ? tokens : null;
}

/**
 * Finds the value given to --api-key in raw arguments, even when parsing them failed, so the CLI can
 * mask it out of an argument error message.
 */
export function findApiKeyArgument(args: readonly string[]): string | undefined {
  for (const [index, arg] of args.entries()) {
    if (arg === '--api-key') return args[index + 1];
    if (arg.startsWith('--api-key=')) return arg.slice('--api-key='.length);
  }
  return undefined;
}
