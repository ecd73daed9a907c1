import { fileURLToPath } from 'node:url';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

// Vite's default server conditions, with `source` first so workspace packages load from TypeScript, no build needed.
const conditions = ['source', 'module', 'node', 'development|production'];
const resolveSource = { resolve: { conditions }, ssr: { resolve: { conditions } } };

export default defineConfig({ ...resolveSource, test: { include: ['test/**/*.test.ts'] } });

const AFTER_TEST_SETUP = fileURLToPath(new URL('./packages/test-kit/src/setup.ts', import.meta.url));

type ProjectTest = NonNullable<TestProjectInlineConfiguration['test']>;

/** One vitest project's files and settings; `slow` lists the files that leave the process (see {@link tiered}). */
export interface TieredProject extends Omit<ProjectTest, 'name' | 'include'> {
  include: string[];
  slow?: string[];
}

/**
 * A package's tests as vitest projects in two tiers, named `fast:<name>` and `slow:<name>` (docs/development.md).
 * fast: in one process — unit tests, the app called over supertest or a port-0 socket, in-memory or temp-directory
 * stores, in-process emulators. slow: everything that starts another process or needs something built — the
 * service or a tool as a child process, Mosquitto, PostgreSQL, Prometheus, Chromium, the library's pack, the
 * built dashboards. `pnpm test:fast` runs `fast:*`; `pnpm test` runs both.
 */
export function tiered(
  root: string,
  name: string,
  { include, slow = [], exclude = [], setupFiles = [], ...test }: TieredProject,
): TestProjectInlineConfiguration[] {
  // test-kit's afterTest cleanups run after each test of every file (see packages/test-kit/src/after-test.ts).
  const withSetup = { ...test, setupFiles: [AFTER_TEST_SETUP, ...(typeof setupFiles === 'string' ? [setupFiles] : setupFiles)] };
  // One module graph per worker across the files of a tier (each file still gets its own test state): loading
  // express, zod and the app once per worker instead of once per file is most of what makes the fast tier fast, and
  // halves the slow tier's import time.
  const fast: TestProjectInlineConfiguration = {
    ...resolveSource,
    root,
    test: { isolate: false, ...withSetup, name: `fast:${name}`, include, exclude: [...exclude, ...slow] },
  };
  const slowProject: TestProjectInlineConfiguration = {
    ...resolveSource,
    root,
    // 15 s a test, not 5: each request of a slow test crosses a real process, disk or database, and the run keeps
    // both cores busy; a test that hangs still fails, later.
    test: { isolate: false, testTimeout: 15_000, ...withSetup, name: `slow:${name}`, include: slow, exclude },
  };
  return [...(include.length > 0 ? [fast] : []), ...(slow.length > 0 ? [slowProject] : [])];
}
