import { systemClock, type Clock } from './clock.js';

/** Settings of the wrong-key throttle. */
export interface AuthThrottleOptions {
  /** Wrong keys one address may send per window before it is refused. */
  maxFailures?: number;
  windowMs?: number;
  /** Addresses remembered at most; the oldest are forgotten first, so a flood of addresses costs bounded memory. */
  maxAddresses?: number;
  /** Default: the system clock. */
  clock?: Clock;
}

interface Window {
  failures: number;
  endsAt: number;
}

/** Counts wrong API keys per client address in fixed windows; past the limit the address waits for its window's end. */
export class AuthThrottle {
  private readonly windows = new Map<string, Window>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly maxAddresses: number;
  private readonly clock: Clock;

  constructor(options: AuthThrottleOptions = {}) {
    this.maxFailures = options.maxFailures ?? 10;
    this.windowMs = options.windowMs ?? 60_000;
    this.maxAddresses = options.maxAddresses ?? 10_000;
    this.clock = options.clock ?? systemClock;
  }

  /** Seconds the address must still wait, or 0 when it may try a key. */
  blockedFor(address: string): number {
    const window = this.windows.get(address);
    if (!window) return 0;
    const left = window.endsAt - this.clock.now();
    if (left <= 0) {
      this.windows.delete(address);
      return 0;
    }
    return window.failures >= this.maxFailures ? Math.ceil(left / 1000) : 0;
  }

  recordFailure(address: string): void {
    const now = this.clock.now();
    const window = this.windows.get(address);
    if (window && window.endsAt > now) {
      window.failures++;
      return;
    }
    this.windows.delete(address);
    if (this.windows.size >= this.maxAddresses) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(address, { failures: 1, endsAt: now + this.windowMs });
  }
}
