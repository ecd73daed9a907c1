import type { Clock, Timer } from './clock.js';

/** Raised by withTimeout when the wrapped work did not settle in time. */
export class TimeoutError extends Error {
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} did not finish within ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * Settles with the promise, or rejects with TimeoutError after `ms` on `clock` (tests move a ManualClock instead of
 * waiting); the timer never keeps the process alive and is cancelled once the promise settles.
 */
export function withTimeout<T>(clock: Clock, promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: Timer | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = clock.setTimer(() => reject(new TimeoutError(what, ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => timer?.cancel());
}
