/** Runs at most `limit` tasks at a time (Pushover allows two concurrent connections per app); the rest queue in order. */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next task so the count never dips and lets a newcomer overtake.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
