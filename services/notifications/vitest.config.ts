import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// Two projects: every suite on the YAML file; the HTTP, Pushover and storage suites again on a real PostgreSQL
// (a throwaway cluster started by the global setup), plus the PostgreSQL-only tests (pg-*).
const postgresOnly = ['test/**/pg-*.test.ts', 'test/storage/postgres-cluster.test.ts'];
// nock.disableNetConnect() once, for every file of both projects (loopback stays open).
const setupFiles = ['test/support/nock-setup.ts'];
const { resolve = {}, ssr = {} } = shared;

export default defineConfig({
  test: {
    projects: [
      { resolve, ssr, test: { name: 'yaml', include: ['test/**/*.test.ts'], exclude: postgresOnly, setupFiles } },
      {
        resolve,
        ssr,
        test: {
          name: 'postgres',
          // The alert-ownership suite too: the server-set alert field is what PostgreSQL's ringing lookup must keep.
          include: ['test/http/**/*.test.ts', 'test/pushover/**/*.test.ts', 'test/hooks/alert-ownership.test.ts', ...postgresOnly],
          env: { TEST_STORAGE: 'postgres' },
          setupFiles,
          globalSetup: ['test/support/postgres-global-setup.ts'],
        },
      },
    ],
  },
});
