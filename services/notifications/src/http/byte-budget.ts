import { AppError } from '@homeops/common';

// A large body takes a second or two on a LAN: by then some of the budget is likely free again.
const RETRY_AFTER_SECONDS = 2;

interface Waiter {
  bytes: number;
  grant: () => void;
}

/** How much memory large request bodies may take at once, and how long a request may wait for its share. */
export interface ByteBudgetOptions {
  capacity: number;
  maxWaitMs: number;
}

/**
 * A semaphore counted in bytes, first come first served: a request holds its share from before its body is read
 * until its answer is sent, so the bytes of large bodies (and what is parsed from them) in memory stay bounded
 * while TCP holds back the bodies of the requests that wait.
 */
export class ByteBudget {
  #free: number;
  readonly #waiters: Waiter[] = [];

  constructor(private readonly options: ByteBudgetOptions) {
    this.#free = options.capacity;
  }

  /** Bytes not held right now. */
  get free(): number {
    return this.#free;
  }

  /** Requests waiting for their share. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * Resolves with the release function once `bytes` (at most the capacity) are free; rejects with SERVER_BUSY after
   * maxWaitMs, or with the signal's reason when it aborts first.
   */
  acquire(bytes: number, signal?: AbortSignal): Promise<() => void> {
    const share = Math.min(bytes, this.options.capacity);
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#waiters.length === 0 && share <= this.#free) {
      this.#free -= share;
      return Promise.resolve(this.#releaser(share));
    }
    return new Promise((resolve, reject) => {
      const leave = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
      };
      const waiter: Waiter = {
        bytes: share,
        grant: () => {
          leave();
          resolve(this.#releaser(share));
        },
      };
      const onAbort = (): void => {
        leave();
        reject(signal?.reason);
        // The head may have been all that held back smaller waiters behind it.
        this.#grantWaiting();
      };
      const timer = setTimeout(() => {
        leave();
        reject(this.#busy());
        this.#grantWaiting();
      }, this.options.maxWaitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #busy(): AppError {
    return new AppError('SERVER_BUSY', 'Too many large notifications are being received at once', {
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    });
  }

  #grantWaiting(): void {
    for (let head = this.#waiters[0]; head !== undefined && head.bytes <= this.#free; head = this.#waiters[0]) {
      this.#free -= head.bytes;
      head.grant();
    }
  }

  #releaser(share: number): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#free += share;
      this.#grantWaiting();
    };
  }
}
