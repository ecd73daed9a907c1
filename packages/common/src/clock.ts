/** A pending timer of a Clock. */
export interface Timer {
  cancel(): void;
}

/** How a timer treats the process. */
export interface TimerOptions {
  /** Keep the process alive until it fires (a wait the program needs, such as a write or a lock's retry); default false. */
  keepAlive?: boolean;
}

/**
 * The one source of time and timers of both services: read the time and arm timers only through it, so backoff,
 * leases, expiry and heartbeats are tested by moving time (ManualClock), never by sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once after `ms`. Unless `keepAlive`, the timer never keeps the process alive on its own. */
  setTimer(callback: () => void, ms: number, options?: TimerOptions): Timer;
}

/** The longest delay Node's setTimeout takes (2³¹−1 ms, about 24.8 days); a longer one fires at once with a warning. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * Arms `callback` at `ms` from now on a clock whose timers take at most `maxDelayMs`: a longer delay is a chain of
 * shorter timers, each re-reading the time, so a token ending in 30 days fires in 30 days, not at once.
 */
export function setChainedTimer(base: Clock, callback: () => void, ms: number, options?: TimerOptions, maxDelayMs = MAX_TIMER_DELAY_MS): Timer {
  const at = base.now() + Math.max(0, ms);
  let current: Timer;
  const arm = (delay: number) => {
    current = base.setTimer(
      () => {
        const left = at - base.now();
        if (left > 0) arm(left);
        else callback();
      },
      Math.min(delay, maxDelayMs),
      options,
    );
  };
  arm(Math.max(0, ms));
  return { cancel: () => current.cancel() };
}

/** Node's own timers, each at most MAX_TIMER_DELAY_MS. */
const nodeTimers: Clock = {
  now: () => Date.now(),
  setTimer(callback, ms, options) {
    const handle = setTimeout(callback, Math.min(ms, MAX_TIMER_DELAY_MS));
    if (options?.keepAlive !== true) handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};

/** The wall clock and Node's timers, chained for delays past what setTimeout takes. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (callback, ms, options) => setChainedTimer(nodeTimers, callback, ms, options),
};

/** The clock's time as an ISO 8601 string (the timestamps of records, statuses and events). */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString();
}

/** Calls `callback` every `ms` until cancelled (setInterval on a Clock); the next run is armed before each call. */
export function setRepeatingTimer(clock: Clock, callback: () => void, ms: number): Timer {
  let timer: Timer;
  let cancelled = false;
  const arm = () => {
    timer = clock.setTimer(() => {
      if (cancelled) return;
      arm();
      callback();
    }, ms);
  };
  arm();
  return {
    cancel: () => {
      cancelled = true;
      timer.cancel();
    },
  };
}

/** Resolves after `ms` on the clock; keeps the process alive meanwhile, like an awaited setTimeout. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(resolve, ms, { keepAlive: true }));
}

interface Pending {
  at: number;
  seq: number;
  callback: () => void;
}

/**
 * A clock that moves only when told to; its timers fire, in order, as `advance` passes them. For tests. Its raw timers
 * overflow as Node's do (a delay past MAX_TIMER_DELAY_MS fires after 1 ms), and are chained as the system clock's are,
 * so a test on it catches a long delay that would fire at once.
 */
export class ManualClock implements Clock {
  private pending: Pending[] = [];
  private seq = 0;
  private readonly raw: Clock = {
    now: () => this.time,
    setTimer: (callback, ms) => this.armRaw(callback, ms > MAX_TIMER_DELAY_MS ? 1 : ms),
  };

  constructor(private time = Date.parse('2026-01-01T00:00:00Z')) {}

  now(): number {
    return this.time;
  }

  setTimer(callback: () => void, ms: number): Timer {
    return setChainedTimer(this.raw, callback, ms);
  }

  private armRaw(callback: () => void, ms: number): Timer {
    const entry: Pending = { at: this.time + Math.max(0, ms), seq: this.seq++, callback };
    this.pending.push(entry);
    return { cancel: () => void (this.pending = this.pending.filter((p) => p !== entry)) };
  }

  /** Timers armed and not yet fired or cancelled. */
  get timers(): number {
    return this.pending.length;
  }

  /** Moves time forward by `ms`, firing each timer due on the way at its own time (timers they arm included). */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.pending.filter((p) => p.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.pending = this.pending.filter((p) => p !== due);
      this.time = Math.max(this.time, due.at);
      due.callback();
    }
    this.time = end;
  }
}
