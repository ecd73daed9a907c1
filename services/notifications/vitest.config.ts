import { defineConfig } from 'vitest/config';
import { tiered } from '../../vitest.shared.js';

// Every suite runs on the YAML file; the HTTP, Pushover and storage suites run again on a real PostgreSQL
// (a throwaway cluster started by the global setup), plus the PostgreSQL-only tests (pg-*).
const postgresOnly = ['test/**/pg-*.test.ts', 'test/storage/postgres-cluster.test.ts'];
// The service or a crash child as a process, Mosquitto, the library's pack and install.
const slow = [
  'test/faults/crash.test.ts',
  'test/hostile/process-survives.test.ts',
  'test/library/**/*.test.ts',
  'test/mqtt/mqtt-*.test.ts',
  'test/plans/escalation-kill9.test.ts',
  'test/plans/plans-kill9.test.ts',
  'test/service/orphan-attachments.test.ts',
  'test/service/taken-port.test.ts',
  'test/storage/crash-recovery.test.ts',
  'test/storage/file-lock.test.ts',
  'test/storage/fold-on-close.test.ts',
  'test/storage/lock-race.test.ts',
];
// nock.disableNetConnect() once, for every file of every project (loopback stays open).
const setupFiles = ['test/support/nock-setup.ts'];
const root = import.meta.dirname;

export const projects = [
  ...tiered(root, 'notifications', { include: ['test/**/*.test.ts'], exclude: postgresOnly, slow, setupFiles }),
  ...tiered(root, 'postgres', {
    include: [],
    // The alert-ownership suite too: the server-set alert field is what PostgreSQL's ringing lookup must keep.
    // The fallback suite too: delivery.channels must survive PostgreSQL's jsonb record as it does the YAML file; and the
    // escalation suite: a stage's escalation field too.
    slow: [
      'test/http/**/*.test.ts',
      'test/pushover/**/*.test.ts',
      'test/hooks/alert-ownership.test.ts',
      'test/fallback/fallback-delivery.test.ts',
      'test/plans/escalation.test.ts',
      ...postgresOnly,
    ],
    env: { TEST_STORAGE: 'postgres' },
    setupFiles,
    globalSetup: ['test/support/postgres-global-setup.ts'],
  }),
];

export default defineConfig({ test: { projects } });
