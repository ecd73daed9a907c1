/** Runs at most `limit` tasks at a time (Pushover allows two connections per app); waiting tasks run in order, urgent ones first. */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** How many of `waiting` (at its front) are urgent, so urgent tasks keep their own order. */
  private urgentCount = 0;

  constructor(private readonly limit: number) {}

  /** Runs `task` when a slot is free; `urgent` tasks (a caller is waiting for them) queue ahead of the others. */
  async run<T>(task: () => Promise<T>, urgent = false): Promise<T> {
    if (this.active >= this.limit) {
      await new Promise<void>((resolve) => (urgent ? this.waiting.splice(this.urgentCount++, 0, resolve) : this.waiting.push(resolve)));
    } else this.active++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next task so the count never dips and lets a newcomer overtake.
      const next = this.waiting.shift();
      if (this.urgentCount > 0) this.urgentCount--;
      if (next) next();
      else this.active--;
    }
  }
}
