/**
 * `npm run ingest -- --conversations-path DIR --database-url URL [--follow]`
 * Copies a conversations directory into PostgreSQL (migrating the schema first), and with
 * --follow keeps copying appended events and new conversations until SIGTERM or SIGINT.
 * Progress goes to stderr every few seconds. Exit 0 done, 1 failed, 2 bad arguments or
 * no database. `ingestCommand` is the whole command, for the installed `agent-server ingest`.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../log';
import { createPool, describeDatabaseError, isUnavailable, redactedUrl } from '../store/postgres/connection';
import { ingestConversations, type IngestProgress } from '../store/ingest/ingester';
import { migrate } from '../store/postgres/migrations';
import { postgresDatabase } from '../store/postgres/postgres-database';
import { checkConversationsRoot } from '../store/files/store-root';

export const INGEST_USAGE = 'usage: npm run ingest -- --conversations-path DIR --database-url URL [--follow]\n';

const EXIT_DONE = 0;
const EXIT_FAILED = 1;
const EXIT_CANNOT_RUN = 2;

export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Aborted on SIGTERM/SIGINT by the caller, to end a --follow run. */
  signal?: AbortSignal;
}

export async function ingestCommand(argv: string[], env: NodeJS.ProcessEnv, io: CommandIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'conversations-path': { type: 'string' },
        'database-url': { type: 'string' },
        follow: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    io.err(`ingest: ${(error as Error).message}\n${INGEST_USAGE}`);
    return EXIT_CANNOT_RUN;
  }
  if (values.help) {
    io.out(INGEST_USAGE);
    return EXIT_DONE;
  }
  const root = values['conversations-path'] ?? env['OH_CONVERSATIONS_PATH'];
  const databaseUrl = values['database-url'] ?? env['DATABASE_URL'];
  if (!root) {
    io.err(`ingest: name the conversations directory with --conversations-path DIR (or OH_CONVERSATIONS_PATH).\n${INGEST_USAGE}`);
    return EXIT_CANNOT_RUN;
  }
  if (!databaseUrl) {
    io.err(`ingest: name the database with --database-url postgres://USER@HOST:PORT/DB (or DATABASE_URL).\n${INGEST_USAGE}`);
    return EXIT_CANNOT_RUN;
  }
  const rootProblem = await checkConversationsRoot(path.resolve(root));
  if (rootProblem) {
    io.err(`ingest: ${rootProblem.message}\n`);
    return EXIT_CANNOT_RUN;
  }

  const logger = createLogger(io.err);
  const pool = createPool(databaseUrl, logger);
  try {
    await migrate(pool);
    const summary = await ingestConversations(
      {
        root: path.resolve(root),
        database: postgresDatabase(pool),
        logger,
        follow: values.follow,
        signal: io.signal,
        onProgress: (progress) => io.err(progressLine(progress)),
      },
      isUnavailable,
    );
    io.out(
      `ingest: ${summary.conversations} conversations, ${summary.eventsStored} events stored by this run, ${summary.filesSkipped} event files skipped\n`,
    );
    for (const skipped of summary.skipped) io.out(`  skipped ${skipped.conversation}/events/${skipped.file}: ${skipped.reason}\n`);
    return EXIT_DONE;
  } catch (error) {
    if (isUnavailable(error)) {
      io.err(
        `ingest: cannot use the database at ${redactedUrl(databaseUrl)}: ${describeDatabaseError(error)}. Check that PostgreSQL is running and that --database-url names it.\n`,
      );
      return EXIT_CANNOT_RUN;
    }
    io.err(`ingest: ${(error as Error).message}\n`);
    return EXIT_FAILED;
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** `ingest: 45000/100000 event files (12345 events/s), 3/10 conversations, 0 skipped, about 4 s left` */
export function progressLine(progress: IngestProgress): string {
  const seconds = Math.max(progress.elapsedMs / 1000, 0.001);
  const rate = progress.filesDone / seconds;
  const left = progress.filesTotal - progress.filesDone;
  const eta = rate > 0 && left > 0 ? `, about ${Math.ceil(left / rate)} s left` : '';
  return (
    `ingest: ${progress.filesDone}/${progress.filesTotal} event files (${Math.round(progress.eventsStored / seconds)} events/s), ` +
    `${progress.conversationsDone}/${progress.conversationsTotal} conversations, ${progress.filesSkipped} skipped${eta}\n`
  );
}

if (require.main === module) {
  const stop = new AbortController();
  process.on('SIGTERM', () => stop.abort());
  process.on('SIGINT', () => stop.abort());
  void ingestCommand(process.argv.slice(2), process.env, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    signal: stop.signal,
  }).then((code) => process.exit(code));
}
