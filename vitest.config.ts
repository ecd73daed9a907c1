import { defineConfig, mergeConfig } from 'vitest/config';
import shared from './vitest.shared.js';

// Repository-level checks (compose, Dockerfiles, .env.example); each package has its own config.
export default mergeConfig(shared, defineConfig({ test: { include: ['test/**/*.test.ts'] } }));
