/** Runs the work for one key strictly one after another (commands to one device), different keys in parallel. */
export class DeviceQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Work queued for `key`; resolves or rejects with the work's own outcome. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with work pending. */
  get size(): number {
    return this.tails.size;
  }
}
