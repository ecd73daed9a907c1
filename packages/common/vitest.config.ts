import { defineConfig } from 'vitest/config';
import { tiered } from '../../vitest.shared.js';

// Each of these starts a node child process (import graphs, stdout batching, metrics in a fresh registry).
const slow = ['test/core-entry.test.ts', 'test/metrics.test.ts', 'test/log-output.test.ts'];

export const projects = tiered(import.meta.dirname, 'common', { include: ['test/**/*.test.ts'], slow });

export default defineConfig({ test: { projects } });
