/**
 * `npm run schemathesis [-- --reference [--own-document]] [--max-examples N]`: Schemathesis with
 * dev/schemathesis/schemathesis.toml against our server (default) or the pinned reference agent
 * server, each over a copy of sample-data/conversations. Exit 0 when it finds nothing, 1 when it
 * finds something, 2 when it could not run.
 * `npm run schemathesis -- --write-dictionaries` rewrites dev/schemathesis/dictionaries from the sample data.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DICTIONARIES_FOLDER, dictionariesOf, SAMPLE_CONVERSATIONS, writeDictionaries } from './dictionaries';
import { runSchemathesis } from './run-schemathesis';
import { type ServerUnderTest, startOurServer, startReferenceUnderTest } from './servers-under-test';

const USAGE = `usage: npm run schemathesis -- [--reference [--own-document]] [--max-examples N] | --write-dictionaries
  --reference       run against the pinned reference agent server instead of ours
  --own-document    with --reference: use the reference's own /openapi.json (its three event read operations) instead of openapi.yaml
  --max-examples N  examples per operation and phase (schemathesis.toml sets the default)
  --write-dictionaries  rewrite dev/schemathesis/dictionaries from sample-data/conversations`;

/** The reference's three event read operations; the rest of its API runs agents and commands. */
const REFERENCE_EVENT_PATHS = ['search', 'count', '{event_id}'].map((last) => `/api/conversations/{conversation_id}/events/${last}`);

interface Arguments {
  readonly reference: boolean;
  readonly ownDocument: boolean;
  readonly maxExamples?: number;
  readonly writeDictionaries: boolean;
}

class UsageError extends Error {}

function parseArguments(argv: readonly string[]): Arguments {
  let reference = false;
  let ownDocument = false;
  let writeDictionaries = false;
  let maxExamples: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i];
    if (argument === '--reference') reference = true;
    else if (argument === '--own-document') ownDocument = true;
    else if (argument === '--write-dictionaries') writeDictionaries = true;
    else if (argument === '--max-examples') {
      maxExamples = Number(argv[++i]);
      if (!Number.isInteger(maxExamples) || maxExamples < 1)
        throw new UsageError(`--max-examples needs a whole number of 1 or more, got ${argv[i]}.`);
    } else throw new UsageError(`Unknown argument ${argument}.`);
  }
  if (ownDocument && !reference) throw new UsageError('--own-document applies to the reference only: add --reference.');
  return { reference, ownDocument, maxExamples, writeDictionaries };
}

async function main(argv: readonly string[]): Promise<number> {
  const args = parseArguments(argv);
  if (args.writeDictionaries) {
    writeDictionaries(dictionariesOf(SAMPLE_CONVERSATIONS));
    process.stdout.write(`Wrote ${DICTIONARIES_FOLDER} from ${SAMPLE_CONVERSATIONS}\n`);
    return 0;
  }
  // The reference's own document declares its session key as required, so that run starts it with one and sends it.
  const sessionApiKey = args.ownDocument ? randomUUID() : undefined;
  const server: ServerUnderTest = args.reference ? await startReferenceUnderTest({ sessionApiKey }) : await startOurServer();
  const workDirectory = mkdtempSync(path.join(os.tmpdir(), 'schemathesis-run-'));
  let keepReport = false;
  try {
    const extraArguments = args.ownDocument
      ? // Schemathesis ORs its include filters; each of these paths has only GET in the reference.
        [...REFERENCE_EVENT_PATHS.flatMap((eventPath) => ['--include-path', eventPath]), '--header', `X-Session-API-Key: ${sessionApiKey}`]
      : // Our own operation, not one of the reference's (openapi.yaml says so): the reference has no such path.
        args.reference
        ? ['--exclude-operation-id', 'listStoredConversations']
        : [];
    const run = await runSchemathesis({
      baseUrl: server.url,
      workDirectory,
      schema: args.ownDocument ? `${server.url}/openapi.json` : undefined,
      maxExamples: args.maxExamples,
      extraArguments,
      onOutput: (chunk) => process.stdout.write(chunk),
    });
    const byOperation = new Map<string, Set<string>>();
    for (const finding of run.findings) {
      const codes = byOperation.get(finding.operation) ?? new Set<string>();
      for (const code of finding.codes) codes.add(code);
      byOperation.set(finding.operation, codes);
    }
    const command = run.command.join(' ');
    const printed = sessionApiKey === undefined ? command : command.replaceAll(sessionApiKey, '[session key]');
    process.stdout.write(`\nAgainst ${server.name}, ${(run.durationMs / 1000).toFixed(1)} s:\n  ${printed}\n`);
    process.stdout.write(`  ${run.findings.length} finding(s); ${run.droppedByHooks} dropped by dev/schemathesis/hooks.py\n`);
    for (const [operation, codes] of byOperation) process.stdout.write(`  ${operation}: ${[...codes].join(', ')}\n`);
    const clean = run.findings.length === 0 && run.exitCode === 0;
    if (!clean) process.stdout.write(`  The JUnit report stays in ${workDirectory}\n`);
    keepReport = !clean;
    return clean ? 0 : 1;
  } finally {
    await server.stop();
    if (!keepReport) rmSync(workDirectory, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof UsageError ? `${error.message}\n${USAGE}` : (error as Error).message}\n`);
    process.exitCode = 2;
  },
);
