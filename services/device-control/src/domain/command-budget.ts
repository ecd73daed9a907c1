import { AppError } from '@homeops/common';
import type { Clock } from './clock.js';

/** A spent unit of the budget; handing it back refunds a command that never reached the cloud. */
export interface BudgetTicket {
  readonly at: number;
}

/** The account-wide command allowance: at most `limit` commands in any sliding window of `windowMs`. */
export class CommandBudget {
  private readonly spent: BudgetTicket[] = [];

  constructor(
    readonly limit: number,
    private readonly clock: Clock,
    readonly windowMs = 60_000,
  ) {}

  private prune(): void {
    const cutoff = this.clock.now() - this.windowMs;
    while (this.spent.length > 0 && this.spent[0]!.at <= cutoff) this.spent.shift();
  }

  /** Commands spent in the current window. */
  used(): number {
    this.prune();
    return this.spent.length;
  }

  /** Spends one command or throws COMMAND_BUDGET_EXHAUSTED with the seconds until one is free again. */
  assertTake(): BudgetTicket {
    const ticket = this.tryTake(0);
    if (ticket) return ticket;
    const oldest = this.spent[0]!.at;
    const retryAfterSeconds = Math.max(1, Math.ceil((oldest + this.windowMs - this.clock.now()) / 1000));
    throw new AppError(
      'COMMAND_BUDGET_EXHAUSTED',
      `Command budget exhausted: ${this.limit} commands per ${this.windowMs / 1000} s for the whole account`,
      { retryAfterSeconds },
    );
  }

  /** Spends one command if more than `reserve` would remain; for optional work that must not starve callers. */
  tryTake(reserve: number): BudgetTicket | undefined {
    this.prune();
    if (this.spent.length + reserve >= this.limit) return undefined;
    const ticket = { at: this.clock.now() };
    this.spent.push(ticket);
    return ticket;
  }

  /** Milliseconds until tryTake(reserve) could succeed: 0 when it can now, Infinity when the reserve leaves nothing. */
  msUntilAvailable(reserve: number): number {
    this.prune();
    if (reserve >= this.limit) return Infinity;
    const mustExpire = this.spent[this.spent.length + reserve - this.limit];
    return mustExpire ? Math.max(0, mustExpire.at + this.windowMs - this.clock.now()) : 0;
  }

  refund(ticket: BudgetTicket): void {
    const index = this.spent.indexOf(ticket);
    if (index >= 0) this.spent.splice(index, 1);
  }
}
