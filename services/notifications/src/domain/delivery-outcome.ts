import { DeliveryError, type PushReceipt } from './push-provider.js';
import type { CancelledDelivery, FailedDelivery, NotificationRecord, PendingDelivery, SentDelivery, UnknownDelivery } from './notification.js';

/** How retries are spaced and bounded. */
export interface RetryPolicy {
  /** First retry delay; Pushover asks for no retry sooner than 5 s. */
  minDelayMs: number;
  maxDelayMs: number;
  maxAttempts: number;
}

/** Exponential backoff from the attempt count: min, 2×min, 4×min… capped, plus up to 10 % jitter (never below min). */
export function retryDelayMs(policy: RetryPolicy, attempts: number): number {
  const base = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** Math.max(0, attempts - 1));
  return Math.max(policy.minDelayMs, Math.round(base * (1 + Math.random() * 0.1)));
}

/** The delivery state after an accepted attempt. */
export function sentDelivery(receipt: PushReceipt, attempts: number, at: string): SentDelivery {
  return {
    status: 'sent',
    attempts,
    request: receipt.request,
    ...(receipt.receipt ? { receipt: receipt.receipt } : {}),
    lastAttemptAt: at,
    ...(receipt.note ? { note: receipt.note } : {}),
  };
}

function describe(err: unknown): { text: string; retryable: boolean } {
  if (err instanceof DeliveryError) {
    if (err.details.quotaExhausted) {
      return { text: `Pushover's monthly message quota is used up: ${err.message}`, retryable: false };
    }
    // Keep Pushover's own words (the `errors` array) unless the message already carries them.
    const extra = (err.details.errors ?? []).filter((e) => !err.message.includes(e));
    return { text: extra.length > 0 ? `${err.message}: ${extra.join('; ')}` : err.message, retryable: err.retryable };
  }
  // An unexpected failure (a bug or an adapter surprise) is retried: losing an alert is worse than a late one.
  return { text: err instanceof Error ? err.message : String(err), retryable: true };
}

/** The message an emergency's `unknown` delivery carries. */
export const UNKNOWN_EMERGENCY_TEXT =
  'Pushover may have created this emergency alarm (no answer came); it is not sent again so that it never rings twice. Check the phone, and resend it if it did not arrive';

/** An emergency's claimed attempt cut off by a stop: it may have reached Pushover, so it is `unknown`, never sent again. */
export function interruptedDelivery(claimed: PendingDelivery): UnknownDelivery {
  const { nextAttemptAt: _next, ...rest } = claimed;
  return { ...rest, status: 'unknown', error: `${UNKNOWN_EMERGENCY_TEXT}: the service stopped while it was being sent` };
}

/**
 * The delivery state after a failed attempt: retry later (counted from when it failed), or give up with the reason.
 * An emergency (priority 2) that may have reached Pushover is `unknown`, never retried: a second alarm is worse.
 */
export function failedDelivery(
  err: unknown,
  attempts: number,
  at: Date,
  policy: RetryPolicy,
  failedAt = at,
  priority = 0,
): PendingDelivery | FailedDelivery | UnknownDelivery {
  const { text, retryable } = describe(err);
  const lastAttemptAt = at.toISOString();
  const maybeDelivered = !(err instanceof DeliveryError) || err.details.maybeDelivered === true;
  if (priority === 2 && retryable && maybeDelivered) {
    return { status: 'unknown', attempts, error: `${UNKNOWN_EMERGENCY_TEXT}: ${text}`, lastAttemptAt };
  }
  // A spent quota or a paused provider is no reason to give up: the message goes out once sending may resume
  // (unless it is too old by then).
  const waitUntil = err instanceof DeliveryError ? err.details.waitUntil : undefined;
  if (waitUntil !== undefined && !Number.isNaN(Date.parse(waitUntil))) {
    const nextAttemptAt = new Date(Math.max(Date.parse(waitUntil), failedAt.getTime() + policy.minDelayMs)).toISOString();
    const until = err instanceof DeliveryError && err.details.quotaExhausted ? 'waiting for the reset' : 'waiting until sending resumes';
    return { status: 'pending', attempts, error: `${text}; ${until}`, lastAttemptAt, nextAttemptAt };
  }
  if (!retryable) return { status: 'failed', attempts, error: text, lastAttemptAt };
  if (attempts >= policy.maxAttempts) {
    return { status: 'failed', attempts, error: `Gave up after ${attempts} attempts: ${text}`, lastAttemptAt };
  }
  const nextAttemptAt = new Date(failedAt.getTime() + retryDelayMs(policy, attempts)).toISOString();
  return { status: 'pending', attempts, error: text, lastAttemptAt, nextAttemptAt };
}

/**
 * Pushover said to wait (a spent quota, the circuit open) and the recipient has a fallback: this Pushover attempt ends
 * failed, its error starting with the reason (`quota` or `paused`), and the fallback carries the notification.
 */
export function handedOverDelivery(err: DeliveryError, attempts: number, at: Date): FailedDelivery {
  const { text } = describe(err);
  const reason = err.details.quotaExhausted ? 'quota' : 'paused';
  return { status: 'failed', attempts, error: `${reason}: ${text}; handed to the fallback`, lastAttemptAt: at.toISOString() };
}

/**
 * A stage of an escalation chain still waiting for its (next) attempt when the chain ended: the chain's end marks every
 * stage read, and a read stage is never sent. Undefined for any other record.
 */
export function cancelledStage(record: NotificationRecord, pending: PendingDelivery): CancelledDelivery | undefined {
  if (!record.escalation || !record.read) return undefined;
  const { nextAttemptAt: _next, error: _error, ...rest } = pending;
  return { ...rest, status: 'cancelled', error: 'Not sent: its escalation chain ended (acknowledged, read, deleted or resolved) before it went out' };
}
