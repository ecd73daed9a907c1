import { systemClock, type Clock } from '@homeops/common';

/** First wait before the validation call that may close the circuit; doubled after each failed probe. */
const FIRST_PROBE_MS = 60_000;
const MAX_PROBE_MS = 60 * 60_000;

/**
 * Pushover blocks the IP of an application that keeps sending after 4xx answers. After `limit` consecutive 4xx
 * (429 excluded: the quota has its own wait), the circuit opens and nothing goes out until a key validation succeeds.
 */
export class RejectionCircuit {
  #consecutive = 0;
  #openSince: number | null = null;
  #reason: string | null = null;
  #probeDelayMs = FIRST_PROBE_MS;
  #nextProbeAt: number | null = null;

  constructor(
    readonly limit: number,
    private readonly firstProbeMs = FIRST_PROBE_MS,
    private readonly clock: Clock = systemClock,
  ) {}

  get isOpen(): boolean {
    return this.#openSince !== null;
  }

  /** Counts an answer; resolves true when this answer opened the circuit. */
  record(status: number, reason: string): boolean {
    if (this.isOpen) return false;
    if (status >= 200 && status < 300) this.#consecutive = 0;
    else if (status >= 400 && status < 500 && status !== 429) this.#consecutive += 1;
    if (this.#consecutive < this.limit) return false;
    this.#openSince = this.clock.now();
    this.#reason = `${this.#consecutive} requests in a row were rejected; the last: ${reason}`;
    this.#probeDelayMs = this.firstProbeMs;
    this.#nextProbeAt = this.#openSince + this.#probeDelayMs;
    return true;
  }

  /** When to probe next (ms since epoch), with the wait doubled for the probe after. */
  probeFailed(): number {
    this.#probeDelayMs = Math.min(Math.max(MAX_PROBE_MS, this.firstProbeMs), this.#probeDelayMs * 2);
    this.#nextProbeAt = this.clock.now() + this.#probeDelayMs;
    return this.#nextProbeAt;
  }

  /** A validation call succeeded: sending resumes. */
  close(): void {
    this.#consecutive = 0;
    this.#openSince = null;
    this.#reason = null;
    this.#nextProbeAt = null;
  }

  get nextProbeAt(): number | null {
    return this.#nextProbeAt;
  }

  status(): { open: boolean; since: string | null; reason: string | null; nextProbeAt: string | null } {
    const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
    return { open: this.isOpen, since: iso(this.#openSince), reason: this.#reason, nextProbeAt: iso(this.#nextProbeAt) };
  }
}
