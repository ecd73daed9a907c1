import { defineConfig } from 'vitest/config';

// Vite's default server conditions, with `source` first so workspace packages load from TypeScript, no build needed.
const conditions = ['source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { include: ['test/**/*.test.ts'] },
});
