/** Lets at most `limit` holders run at once; waiters are served first come, first served. */
export class Semaphore {
  #active = 0;
  readonly #waiters: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** Resolves with a release function once a slot is free; rejects with the signal's reason if it aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.limit) {
      this.#active += 1;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.#releaser());
      };
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(grant);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(grant);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      // The slot passes straight to the next waiter, so #active stays the same.
      if (next) next();
      else this.#active -= 1;
    };
  }
}
