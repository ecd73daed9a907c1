import { AppError, type Clock } from '@homeops/common/core';

/** Who wants to send: a caller of the API (a command, a read it needs, a sync it asked for) or the service itself. */
export type Priority = 'caller' | 'background';

/** One sliding window of the budget. */
export interface BudgetWindowLimit {
  name: 'hour' | 'burst';
  limit: number;
  windowMs: number;
}

/** A window as /health shows it. */
export interface BudgetWindowStatus {
  window: 'hour' | 'burst';
  seconds: number;
  limit: number;
  /** Messages sent in the window, plus those admitted and not yet finished. */
  used: number;
  remaining: number;
  /** The last share of the window that background work never spends. */
  reservedForCallers: number;
}

/** Room held for one admitted cloud call until it finished; the messages it really sent are recorded apart. */
export interface Reservation {
  readonly at: number;
  /** Messages the call may send (a read of two abilities sends two). */
  readonly count: number;
}

/**
 * The account-wide allowance of cloud messages (HTTP API calls and MQTT requests, whoever causes them), in an hourly
 * and a short burst window. Messages are recorded as they reach the cloud (`record`); a call is admitted first
 * (`assertReserve` / `tryReserve`) and holds its room until it finished, so concurrent calls cannot overshoot and a
 * call that never reached the cloud costs nothing. Background work may not spend the last `backgroundShare` of any
 * window: callers always find that share free.
 */
export class MessageBudget {
  private readonly sent: number[] = [];
  private readonly pending = new Set<Reservation>();
  private total = 0;

  constructor(
    readonly windows: readonly BudgetWindowLimit[],
    private readonly clock: Clock,
    private readonly backgroundShare = 0.5,
  ) {
    if (windows.length === 0) throw new Error('a message budget needs at least one window');
  }

  /** Messages recorded since the start. */
  get sentTotal(): number {
    return this.total;
  }

  /** A message reached the cloud. */
  record(count = 1): void {
    const now = this.clock.now();
    for (let i = 0; i < count; i += 1) this.sent.push(now);
    this.total += count;
    this.prune();
  }

  /** Admits a caller's call or throws COMMAND_BUDGET_EXHAUSTED with the seconds until there is room again. */
  assertReserve(priority: Priority = 'caller', count = 1): Reservation {
    const reservation = this.tryReserve(priority, count);
    if (reservation) return reservation;
    const full = this.windows.find((w) => !this.fits(w, priority, count)) ?? this.windows[0]!;
    throw new AppError(
      'COMMAND_BUDGET_EXHAUSTED',
      `Cloud message budget exhausted: ${full.limit} messages per ${describeWindow(full.windowMs)} for the whole account`,
      { retryAfterSeconds: Math.max(1, Math.ceil(this.msUntilAvailable(priority, count) / 1000)) },
    );
  }

  /** Admits a call if it fits the windows for its priority. */
  tryReserve(priority: Priority, count = 1): Reservation | undefined {
    this.prune();
    if (!this.windows.every((w) => this.fits(w, priority, count))) return undefined;
    const reservation = { at: this.clock.now(), count };
    this.pending.add(reservation);
    return reservation;
  }

  /** The admitted call finished (whatever its outcome); what it sent was recorded on the way. */
  release(reservation: Reservation): void {
    this.pending.delete(reservation);
  }

  /** Milliseconds until a call of this priority fits: 0 now, Infinity when its share is empty by configuration. */
  msUntilAvailable(priority: Priority, count = 1): number {
    this.prune();
    const now = this.clock.now();
    let wait = 0;
    for (const w of this.windows) {
      const allowed = w.limit - this.reserveOf(w, priority);
      if (allowed <= 0) return Infinity;
      const inWindow = this.sentIn(w);
      const excess = inWindow.length + this.pendingCount() + count - allowed;
      if (excess <= 0) continue;
      // Admitted calls still running free their room when they finish; a second is a fair guess for that.
      const expiring = inWindow[excess - 1];
      wait = Math.max(wait, expiring === undefined ? 1_000 : expiring + w.windowMs - now);
    }
    return Math.max(0, wait);
  }

  status(): BudgetWindowStatus[] {
    this.prune();
    return this.windows.map((w) => {
      const used = this.sentIn(w).length + this.pendingCount();
      return {
        window: w.name,
        seconds: w.windowMs / 1000,
        limit: w.limit,
        used,
        remaining: Math.max(0, w.limit - used),
        reservedForCallers: this.reserveOf(w, 'background'),
      };
    });
  }

  private pendingCount(): number {
    let count = 0;
    for (const reservation of this.pending) count += reservation.count;
    return count;
  }

  private fits(w: BudgetWindowLimit, priority: Priority, count: number): boolean {
    return this.sentIn(w).length + this.pendingCount() + count + this.reserveOf(w, priority) <= w.limit;
  }

  private reserveOf(w: BudgetWindowLimit, priority: Priority): number {
    return priority === 'caller' ? 0 : Math.ceil(w.limit * this.backgroundShare);
  }

  private sentIn(w: BudgetWindowLimit): number[] {
    const cutoff = this.clock.now() - w.windowMs;
    let first = 0;
    while (first < this.sent.length && this.sent[first]! <= cutoff) first += 1;
    return this.sent.slice(first);
  }

  private prune(): void {
    const longest = Math.max(...this.windows.map((w) => w.windowMs));
    const cutoff = this.clock.now() - longest;
    let drop = 0;
    while (drop < this.sent.length && this.sent[drop]! <= cutoff) drop += 1;
    if (drop > 0) this.sent.splice(0, drop);
  }
}

function describeWindow(ms: number): string {
  if (ms % 3_600_000 === 0) return ms === 3_600_000 ? 'hour' : `${ms / 3_600_000} hours`;
  if (ms % 60_000 === 0) return ms === 60_000 ? 'minute' : `${ms / 60_000} minutes`;
  return `${ms / 1000} s`;
}
