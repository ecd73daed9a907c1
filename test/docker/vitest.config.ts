import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// The real-engine suite: run by test/docker/run.sh (and .ci/run), not by `pnpm test`, since it needs a Docker engine.
export default defineConfig({
  ...shared,
  test: { include: ['test/docker/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 1_800_000, fileParallelism: false },
});
