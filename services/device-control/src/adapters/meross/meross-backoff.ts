import type { Clock, Timer } from '@homeops/common';

/** Waits of the session, all in milliseconds; tests pass small values. */
export interface BackoffOptions {
  /** First wait after a failed login; doubles with each further failure. */
  loginBackoffMs: number;
  /** First wait after the API could not be reached with a valid token; doubles likewise. */
  retryBackoffMs: number;
  maxBackoffMs: number;
  /** How long the account is left alone after error 1301 (too many tokens). */
  tooManyTokensWaitMs: number;
  /** Overrides the wait of every other lock-out code (tests); null: each code's own wait. */
  lockoutWaitMs: number | null;
}

/** Production waits: a minute after a failed login, five hours after 1301 (Meross support speaks of about 5). */
export const DEFAULT_BACKOFF: BackoffOptions = {
  loginBackoffMs: 60_000,
  retryBackoffMs: 5_000,
  maxBackoffMs: 30 * 60_000,
  tooManyTokensWaitMs: 5 * 60 * 60_000,
  lockoutWaitMs: null,
};

/** Exponential wait for the n-th consecutive failure (n >= 1). */
export function backoffDelay(firstMs: number, failures: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.max(0, Math.min(failures - 1, 30)));
}

/** What /health tells the user to do in each state that needs them (or that they only have to wait, and until when). */
export const USER_ACTION = {
  credentials: (code: number, text: string) =>
    `Fix CLOUD_EMAIL and CLOUD_PASSWORD (the Meross cloud answered ${code}: ${text}) and restart the service; it does not log in again until then`,
  mfa: 'Send the code your authenticator app shows now: POST /cloud/login with {"mfaCode":"123456"}; the service does not log in again until then',
  tooManyTokens: (until: number) =>
    `Wait: Meross locked the account after too many logins (error 1301, about 5 hours). Do not restart the service or sign in elsewhere meanwhile; it tries again at ${new Date(until).toISOString()}`,
  lockout: (code: number, text: string, until: number) =>
    `Wait: the Meross cloud answered ${code} (${text}); the service sends nothing until ${new Date(until).toISOString()}. If it happens again, lower CLOUD_MAX_MESSAGES_PER_HOUR`,
} as const;

/** The session's one pending retry: arming it again replaces it. */
export class RetryTimer {
  private pending: Timer | null = null;

  constructor(private readonly clock: Clock) {}

  arm(at: number, callback: () => void): void {
    this.cancel();
    this.pending = this.clock.setTimer(() => {
      this.pending = null;
      callback();
    }, at - this.clock.now());
  }

  cancel(): void {
    this.pending?.cancel();
    this.pending = null;
  }
}
