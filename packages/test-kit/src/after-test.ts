const pending: Array<() => unknown> = [];

/**
 * Runs `cleanup` after the current test, the last registered first. A harness module is loaded once per worker
 * (the tiers share their module graph), so a hook it registered at its top would hold for its first file only; the
 * one `afterEach` that drains this list is registered for every file by `setup.ts`.
 */
export function afterTest(cleanup: () => unknown): void {
  pending.push(cleanup);
}

/** Runs and forgets every cleanup registered with {@link afterTest}; the first that throws ends the test as failed. */
export async function runAfterTest(): Promise<void> {
  for (const cleanup of pending.splice(0).reverse()) await cleanup();
}
