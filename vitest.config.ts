import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { projects as common } from './packages/common/vitest.config.js';
import { projects as deviceControl } from './services/device-control/vitest.config.js';
import { projects as notifications } from './services/notifications/vitest.config.js';
import LongestFirst from './vitest.sequencer.js';
import { tiered } from './vitest.shared.js';

// Every test of the repository in one run, as vitest projects in two tiers (docs/development.md): `fast:*`
// (`pnpm test:fast`) and `slow:*`. Each package keeps its settings in its own config, which also runs alone.
// test/docker needs a real Docker engine and runs on its own (test/docker/run.sh).
const repository = tiered(import.meta.dirname, 'repository', {
  // Repository-level checks: compose, Dockerfile, .env.example, docs, error codes, lint rules.
  include: ['test/**/*.test.ts'],
  exclude: ['test/docker/**'],
  // Chromium, Prometheus, both services as processes (pnpm start, Node-RED, Mosquitto), the built dashboards.
  slow: [
    'test/browser/**/*.test.ts',
    'test/metrics/**/*.test.ts',
    'test/seams/**/*.test.ts',
    'test/watches/**/*.test.ts',
    'test/docs-examples.test.ts',
    'test/repository.test.ts',
    'test/dashboard-size.test.ts',
  ],
});

export default defineConfig({
  test: {
    projects: [...repository, ...common, ...deviceControl, ...notifications],
    // One worker more than cores, not vitest's cores - 1: much of a slow file's time is spent waiting on sockets and
    // child processes, so a third file keeps both cores busy (on two cores: 417 s → 333 s for the whole run).
    maxWorkers: availableParallelism() + 1,
    // The project with the longest file first, each project's files longest first (see vitest.sequencer.ts).
    sequence: { sequencer: LongestFirst },
  },
});
