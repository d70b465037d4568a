import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const alias = { '@parley/shared': fileURLToPath(new URL('../shared/src/index.ts', import.meta.url)) };

// The whole server suite runs twice: on embedded PGlite and on the local PostgreSQL.
export default defineConfig({
  resolve: { alias },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two files at once (vitest's default on 2 cores is one): most of a file's time is its own
    // start and waits (jobs, timers, PGlite), so the two projects' files overlap well.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        // Several nodes on one database, or a network between app and database, need a real
        // PostgreSQL: those tests run there only.
        test: { name: 'pglite', env: { PARLEY_TEST_DB: 'pglite' }, exclude: ['**/node_modules/**', 'realtime/cluster.test.ts', 'db/outage.test.ts', '**/*.cluster.test.ts'] },
      },
      {
        extends: true,
        // The README start test and the warm start test run the embedded database only: that is what `npm start` uses.
        test: { name: 'postgres', env: { PARLEY_TEST_DB: 'postgres' }, exclude: ['**/node_modules/**', 'test/start.test.ts', 'test/warmStart.test.ts'] },
      },
    ],
  },
});
