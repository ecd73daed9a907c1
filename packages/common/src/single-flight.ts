/**
 * At most one run of a task at a time: a call while one is in flight gets that run's promise; once it settled, the
 * next call starts a new run.
 */
export class SingleFlight<T> {
  #current: Promise<T> | undefined;

  /** The run in flight, if any. */
  get current(): Promise<T> | undefined {
    return this.#current;
  }

  /** The run in flight, or a new run of `task`. */
  run(task: () => Promise<T>): Promise<T> {
    if (this.#current) return this.#current;
    const run = task().finally(() => {
      if (this.#current === run) this.#current = undefined;
    });
    this.#current = run;
    return run;
  }
}

/** SingleFlight per key: one run per key at a time, runs of different keys side by side. */
export class KeyedSingleFlight<K, T> {
  readonly #flights = new Map<K, Promise<T>>();

  /** How many runs are in flight. */
  get size(): number {
    return this.#flights.size;
  }

  has(key: K): boolean {
    return this.#flights.has(key);
  }

  /** The run of `key` in flight, or a new run of `task`. */
  run(key: K, task: () => Promise<T>): Promise<T> {
    const current = this.#flights.get(key);
    if (current) return current;
    const run = task().finally(() => {
      if (this.#flights.get(key) === run) this.#flights.delete(key);
    });
    this.#flights.set(key, run);
    return run;
  }

  /** Resolves once every run now in flight has settled (fulfilled or not). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#flights.values()]);
  }
}
