import { AppError, type Clock, type Principal } from '@homeops/common';

/**
 * Throws SCOPE_MISSING when the caller's notifications:send grant caps the priority below this one (a token without
 * maxPriority, the key and admins may send any priority, 2 included). An unset priority is Pushover's 0.
 */
export function assertMaySendPriority(principal: Principal, priority: number | undefined): void {
  const max = principal.grant('notifications:send')?.maxPriority;
  const wanted = priority ?? 0;
  if (max === undefined || wanted <= max) return;
  throw new AppError('SCOPE_MISSING', `This token may send at most priority ${max}, not ${wanted}`, {
    solution: `Send with priority ${max} or lower, or ask an admin for a token whose notifications:send grant allows ${wanted}`,
  });
}

/** Tokens remembered at most: as many as a service keeps (MAX_TOKENS), twice over for revoked ones. */
const MAX_TOKENS_TRACKED = 2_000;

/**
 * The send rate of each token whose notifications:send grant has `createsPerMinute`: a burst of that many sends, then
 * one per 60/createsPerMinute seconds (the generic cell rate algorithm: one time per token, no timers). Callers
 * without a rate pass.
 */
export class SendRates {
  /** Per token: when its sends would be spaced out again (the theoretical arrival time). */
  private readonly spacedUntil = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Spends one send of the caller's rate; TOO_MANY_CREATES with the wait for the next one when none is left. */
  take(principal: Principal): void {
    const perMinute = principal.grant('notifications:send')?.createsPerMinute;
    const id = principal.tokenId;
    if (perMinute === undefined || id === undefined) return;
    const now = this.clock.now();
    const interval = 60_000 / perMinute;
    const until = Math.max(this.spacedUntil.get(id) ?? now, now);
    const waitMs = until - now - (perMinute - 1) * interval;
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      throw new AppError('TOO_MANY_CREATES', `This token may send ${perMinute} notifications a minute; the next one in ${seconds} s`, {
        retryAfterSeconds: seconds,
      });
    }
    this.spacedUntil.delete(id);
    if (this.spacedUntil.size >= MAX_TOKENS_TRACKED) this.spacedUntil.delete(this.spacedUntil.keys().next().value!);
    this.spacedUntil.set(id, until + interval);
  }
}
