/**
 * The hardening suites written for the directory store (test/hardening/), again on PostgreSQL.
 * large-events sets its own time limit, which would be the whole file's: it keeps its file,
 * test/postgres/http-large-events.test.ts.
 */
import { runSuitesOnPostgres } from './support/suites-again';

runSuitesOnPostgres([
  'test/hardening/deep-json.test.ts',
  'test/hardening/fuzz.test.ts',
  'test/hardening/hostile-cases.test.ts',
  'test/hardening/hostile-files.test.ts',
  'test/hardening/secret-policy.test.ts',
]);
