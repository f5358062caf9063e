/**
 * `npm run migrate -- --database-url URL`: brings the database's schema to the version this
 * code needs (the ingester does the same when it starts; servers only check it).
 */
import { parseArgs } from 'node:util';
import { createLogger } from '../log';
import { createPool, describeDatabaseError, redactedUrl } from '../store/postgres/connection';
import { latestSchemaVersion, migrate } from '../store/postgres/migrations';

const USAGE = 'usage: npm run migrate -- --database-url URL   (or DATABASE_URL)\n';

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: { 'database-url': { type: 'string' }, help: { type: 'boolean', default: false } },
    }));
  } catch (error) {
    process.stderr.write(`migrate: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const databaseUrl = values['database-url'] ?? process.env['DATABASE_URL'];
  if (!databaseUrl) {
    process.stderr.write(`migrate: name the database with --database-url.\n${USAGE}`);
    return 2;
  }
  const pool = createPool(databaseUrl, createLogger());
  try {
    const applied = await migrate(pool);
    process.stdout.write(
      applied.length === 0 ? `migrate: already at version ${latestSchemaVersion()}\n` : `migrate: applied ${applied.join(', ')}\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(`migrate: cannot migrate the database at ${redactedUrl(databaseUrl)}: ${describeDatabaseError(error)}\n`);
    return 1;
  } finally {
    await pool.end().catch(() => undefined);
  }
}

void main().then((code) => process.exit(code));
