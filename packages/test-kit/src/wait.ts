import { setTimeout as pause } from 'node:timers/promises';

export interface EventuallyOptions {
  /** What the test waits for, named in the failure. */
  what?: string;
  timeoutMs?: number;
  /** Time between two checks; the one pause the test suites may take. */
  intervalMs?: number;
}

/** Thrown by a check to end the wait at once with this error (the process died: waiting longer cannot help). */
export class StopWaiting extends Error {}

type Present<T> = Exclude<T, false | undefined | null>;

/**
 * The one wait helper of the test suites: polls `check` until it returns a value (not false/undefined/null), and fails
 * after the timeout with `what` and the last error the check threw. Tests wait for an outcome, never for a duration.
 */
export async function eventually<T>(check: () => T | Promise<T>, options: EventuallyOptions | string = {}): Promise<Present<T>> {
  const { what = 'the condition', timeoutMs = 10_000, intervalMs = 20 } = typeof options === 'string' ? { what: options } : options;
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false && value !== null) return value as Present<T>;
    } catch (err) {
      if (err instanceof StopWaiting) throw err;
      lastError = err;
    }
    if (performance.now() > deadline) {
      const cause = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await pause(intervalMs);
  }
}

/** Lets the event loop run every callback already due (timers of 0 ms, I/O ready now): for "nothing else happened" checks. */
export async function drainEventLoop(turns = 3): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}
