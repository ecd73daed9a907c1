/** Tuning of a group writer. */
export interface GroupWriterOptions {
  /** Batches being written at once; what arrives meanwhile waits for the next. */
  maxInFlight: number;
  maxBatch: number;
  /** A failure for which each item of the failed batch is written again on its own (e.g. one duplicate key). */
  retryAlone?: (err: unknown) => boolean;
}

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit for a database: items that arrive while earlier ones are being written go out together in the next
 * statement (one round trip, one transaction, one WAL flush); each caller is answered when its own item is committed.
 * Alone, an item is written at once: batching costs no latency when there is no load.
 */
export class GroupWriter<T> {
  private waiting: Array<Waiting<T>> = [];
  private inFlight = 0;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly options: GroupWriterOptions,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.options.maxBatch);
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async flush(batch: Array<Waiting<T>>): Promise<void> {
    try {
      await this.write(batch.map((w) => w.item));
      for (const w of batch) w.resolve();
    } catch (err) {
      if (batch.length > 1 && this.options.retryAlone?.(err)) {
        await Promise.all(batch.map((w) => this.write([w.item]).then(w.resolve, w.reject)));
      } else {
        for (const w of batch) w.reject(err);
      }
    }
  }
}
