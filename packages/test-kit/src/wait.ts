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

/** Thrown by `within` when the work took longer, or less long, than its bounds. */
export class OutOfTime extends Error {}

/**
 * The one place a test bounds a duration on the wall clock (a real process, a real socket, a real browser): resolves
 * with `work` once it settled within `ms`, or within `[minMs, maxMs]`, and fails with OutOfTime naming `what` otherwise
 * (at `maxMs` at the latest). Pass a function to have its start inside the bound.
 */
export async function within<T>(ms: number | [minMs: number, maxMs: number], what: string, work: Promise<T> | (() => Promise<T>)): Promise<T> {
  const [minMs, maxMs] = typeof ms === 'number' ? [0, ms] : ms;
  const started = performance.now();
  const outOfTime = (took: number, late: boolean) =>
    new OutOfTime(`${what} took ${Math.round(took)} ms, ${late ? `more than ${maxMs}` : `less than ${minMs}`} ms`);
  let timer: NodeJS.Timeout | undefined;
  // The timer's own firing is the verdict: libuv's clock can run up to a millisecond behind performance.now().
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(outOfTime(Math.max(performance.now() - started, maxMs), true)), maxMs);
  });
  try {
    const value = await Promise.race([typeof work === 'function' ? work() : work, late]);
    // Settled after the bound, before the timer got its turn: as late all the same.
    const took = performance.now() - started;
    if (took > maxMs || took < minMs) throw outOfTime(took, took > maxMs);
    return value;
  } finally {
    clearTimeout(timer);
  }
}

/** How long some work took on the wall clock: for `assertNoSlower`, and for report lines. */
export class Timing {
  private constructor(readonly ms: number) {}

  /** Runs `work` and resolves how long it took; fails as the work does. */
  static async of(work: () => Promise<unknown>): Promise<Timing> {
    const started = performance.now();
    await work();
    return new Timing(performance.now() - started);
  }

  /** The longest of these timings. */
  static slowest(timings: readonly Timing[]): Timing {
    return timings.reduce((a, b) => (b.ms > a.ms ? b : a), new Timing(0));
  }
}

/**
 * Fails with OutOfTime unless `candidate` took less than `factor` × `baseline` + `slackMs` (and at least `floorMs` is
 * allowed): the same work timed side by side on one machine, so a busy machine slows both and only a real difference
 * fails.
 */
export function assertNoSlower(what: string, candidate: Timing, baseline: Timing, margin: { factor: number; slackMs?: number; floorMs?: number }): void {
  const { factor, slackMs = 0, floorMs = 0 } = margin;
  const bound = Math.max(factor * baseline.ms + slackMs, floorMs);
  if (candidate.ms >= bound) {
    throw new OutOfTime(
      `${what} took ${Math.round(candidate.ms)} ms, not less than ${Math.round(bound)} ms (${factor} × ${Math.round(baseline.ms)} ms + ${slackMs} ms, at least ${floorMs} ms)`,
    );
  }
}
