import { defineConfig, mergeConfig } from 'vitest/config';
import shared from './vitest.shared.js';

// Repository-level checks (compose, Dockerfile, .env.example); each package has its own config.
// test/docker needs a real Docker engine and runs on its own (test/docker/run.sh).
export default mergeConfig(shared, defineConfig({ test: { include: ['test/**/*.test.ts'], exclude: ['test/docker/**'] } }));
