/**
 * Lets at most `limit` holders run at once (Pushover allows two connections per app); waiters are served in order,
 * urgent ones first.
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** How many of `waiting` (at its front) are urgent, so urgent waiters keep their own order. */
  private urgentCount = 0;

  constructor(readonly limit: number) {}

  /** Runs `task` when a slot is free; `urgent` tasks (a caller is waiting for them) queue ahead of the others. */
  async run<T>(task: () => Promise<T>, urgent = false): Promise<T> {
    // A free slot starts the task in this turn, not a microtask later.
    const release = this.tryAcquire() ?? (await this.acquire({ urgent }));
    try {
      return await task();
    } finally {
      release();
    }
  }

  /**
   * Resolves with a release function once a slot is free; `urgent` waiters queue ahead of the others; rejects with
   * the signal's reason if it aborts first.
   */
  acquire(options: { signal?: AbortSignal; urgent?: boolean } = {}): Promise<() => void> {
    const { signal, urgent = false } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const release = this.tryAcquire();
    if (release) return Promise.resolve(release);
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.releaser());
      };
      const onAbort = (): void => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) {
          this.waiting.splice(index, 1);
          if (index < this.urgentCount) this.urgentCount--;
        }
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (urgent) this.waiting.splice(this.urgentCount++, 0, grant);
      else this.waiting.push(grant);
    });
  }

  /** A release function if a slot is free now, else undefined. */
  private tryAcquire(): (() => void) | undefined {
    if (this.active >= this.limit) return undefined;
    this.active++;
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // Hand the slot straight to the next waiter so the count never dips and lets a newcomer overtake.
      const next = this.waiting.shift();
      if (this.urgentCount > 0) this.urgentCount--;
      if (next) next();
      else this.active--;
    };
  }
}
