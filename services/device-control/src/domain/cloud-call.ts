import { AppError, isAppError, TimeoutError, withTimeout, type Clock } from '@homeops/common/core';
import type { CloudStatus } from './device-cloud.js';

/** Retry-After for an unavailable session that did not say when to come back. */
const DEFAULT_RETRY_SECONDS = 5;

/** Seconds until the session's next attempt, or a short default when it gave no time. */
export function retryAfterFrom(status: CloudStatus, now: number): number {
  const retryAt = status.retryAt ? Date.parse(status.retryAt) : Number.NaN;
  return Number.isFinite(retryAt) ? Math.max(1, Math.ceil((retryAt - now) / 1000)) : DEFAULT_RETRY_SECONDS;
}

/** Turns whatever a cloud call failed with into the AppError the contract promises. */
export function toCloudError(err: unknown, what: string, status: () => CloudStatus, now: number): AppError {
  if (err instanceof TimeoutError) {
    return new AppError('CLOUD_TIMEOUT', `The cloud did not answer ${what} within ${err.ms} ms`);
  }
  if (isAppError(err)) {
    if (err.code !== 'CLOUD_UNAVAILABLE' || err.retryAfterSeconds !== undefined) return err;
    return new AppError('CLOUD_UNAVAILABLE', err.message, {
      solution: err.solution,
      retryAfterSeconds: retryAfterFrom(status(), now),
    });
  }
  // Not our error type: keep the text out of the answer, it may carry library internals.
  return new AppError('CLOUD_ERROR', `The cloud request for ${what} failed`, { cause: err });
}

/** A cloud call bounded by our own timeout, failing only with AppErrors. */
export async function callCloud<T>(work: () => Promise<T>, options: { what: string; timeoutMs: number; status: () => CloudStatus; clock: Clock }): Promise<T> {
  try {
    return await withTimeout(options.clock, Promise.resolve().then(work), options.timeoutMs, options.what);
  } catch (err) {
    throw toCloudError(err, options.what, options.status, options.clock.now());
  }
}
