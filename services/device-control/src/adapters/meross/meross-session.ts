import type { CloudSessionState, CloudStatus, TokenStoreStatus } from '../../domain/device-cloud.js';

/** Waits of the session, all in milliseconds; tests pass small values. */
export interface BackoffOptions {
  /** First wait after a failed login; doubles with each further failure. */
  loginBackoffMs: number;
  /** First wait after the API could not be reached with a valid token; doubles likewise. */
  retryBackoffMs: number;
  maxBackoffMs: number;
  /** How long the account is left alone after error 1301 (too many tokens). */
  tooManyTokensWaitMs: number;
}

/** Production waits: a minute after a failed login, four hours after 1301. */
export const DEFAULT_BACKOFF: BackoffOptions = {
  loginBackoffMs: 60_000,
  retryBackoffMs: 5_000,
  maxBackoffMs: 30 * 60_000,
  tooManyTokensWaitMs: 4 * 60 * 60_000,
};

/** Exponential wait for the n-th consecutive failure (n >= 1). */
export function backoffDelay(firstMs: number, failures: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.max(0, Math.min(failures - 1, 30)));
}

/** The state, last error and next attempt of the cloud session; announces every change. */
export class SessionStatus {
  private state: CloudSessionState = 'connecting';
  private lastError: CloudStatus['lastError'] = null;
  private retryAt: number | null = null;

  constructor(
    private readonly announce: (status: CloudStatus) => void,
    private readonly tokenStore: () => TokenStoreStatus,
  ) {}

  get current(): CloudSessionState {
    return this.state;
  }

  snapshot(): CloudStatus {
    return {
      backend: 'meross',
      state: this.state,
      lastError: this.lastError && { ...this.lastError },
      retryAt: this.retryAt === null ? null : new Date(this.retryAt).toISOString(),
      tokenStore: this.tokenStore(),
    };
  }

  /** Seconds until the next attempt, for Retry-After. */
  retryAfterSeconds(fallbackMs: number): number {
    const ms = this.retryAt === null ? fallbackMs : this.retryAt - Date.now();
    return Math.max(1, Math.ceil(ms / 1000));
  }

  recordError(code: string | number | null, message: string): void {
    this.lastError = { code, message, at: new Date().toISOString() };
  }

  set(state: CloudSessionState, retryAt: number | null = null): void {
    if (state === this.state && retryAt === this.retryAt) return;
    this.state = state;
    this.retryAt = retryAt;
    this.announce(this.snapshot());
  }
}
