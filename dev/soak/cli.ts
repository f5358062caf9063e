/**
 * `npm run soak -- [--seconds 60] [--clients 64] [--conversations 4] [--events 400] [--appends-per-second 200] [--json]`
 * Starts the real server on loopback over a temporary copy of generated conversations,
 * reads and appends for the given time, then checks that nothing failed and every appended
 * event was served exactly once. Exit code 0 when every check passes, 1 when one fails,
 * 2 for a usage error.
 */
import { parseArgs } from 'node:util';
import { formatSoakReport } from './report';
import { runSoak } from './run';
import { DEFAULT_SOAK_OPTIONS, type SoakOptions } from './options';

const USAGE = 'usage: npm run soak -- [--seconds N] [--clients N] [--conversations N] [--events N] [--appends-per-second N] [--json]';
const FLAGS = {
  seconds: 'seconds',
  clients: 'clients',
  conversations: 'conversations',
  events: 'initialEvents',
  'appends-per-second': 'appendsPerSecond',
} as const satisfies Record<string, keyof SoakOptions>;

function readOptions(argv: string[]): { options: SoakOptions; json: boolean } | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        ...Object.fromEntries(Object.keys(FLAGS).map((flag) => [flag, { type: 'string' as const }])),
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    return `${(error as Error).message}\n${USAGE}`;
  }
  if (values.help) return USAGE;
  const options: SoakOptions = { ...DEFAULT_SOAK_OPTIONS };
  for (const [flag, field] of Object.entries(FLAGS)) {
    const text = values[flag as keyof typeof values];
    if (text === undefined) continue;
    if (typeof text !== 'string' || !/^[1-9]\d*$/.test(text))
      return `--${flag} must be a whole number above 0, got ${JSON.stringify(text)}.\n${USAGE}`;
    options[field] = Number(text);
  }
  return { options, json: values.json === true };
}

async function main(): Promise<void> {
  const read = readOptions(process.argv.slice(2));
  if (typeof read === 'string') {
    console.error(read);
    process.exit(read === USAGE ? 0 : 2);
  }
  const report = await runSoak(read.options, (line) => console.error(`soak: ${line}`));
  console.log(read.json ? JSON.stringify(report, null, 2) : formatSoakReport(report));
  process.exit(report.ok ? 0 : 1);
}

main().catch((error: unknown) => {
  console.error(`soak: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
