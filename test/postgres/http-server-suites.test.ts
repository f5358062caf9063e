/** The server's suites written for the directory store (test/server/), again on PostgreSQL. */
import { runSuitesOnPostgres } from './support/suites-again';

runSuitesOnPostgres([
  'test/server/paging.test.ts',
  'test/server/filters.test.ts',
  'test/server/count-and-get.test.ts',
  'test/server/validation.test.ts',
  'test/server/text-search.test.ts',
]);
