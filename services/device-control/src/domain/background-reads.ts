import type { Clock, Logger, Timer } from '@homeops/common/core';
import type { Admission, LanOrCloud } from './lan-or-cloud.js';
import type { MessageBudget } from './message-budget.js';

/** The state reads a device family wants in the background (FamilyState.backgroundReads). */
export interface BackgroundStateReads {
  /** The device takes commands and some of its states are unknown. */
  needsRead(uuid: string): boolean;
  /** Reads the device's states with room already admitted; resolves without reading when no longer needed or wanted. */
  read(uuid: string, admission: Admission, wanted: () => boolean): Promise<void>;
}

interface BackgroundReadsDeps extends BackgroundStateReads {
  budget: MessageBudget;
  routes: LanOrCloud;
  clock: Clock;
  logger: Logger;
  /** At most one background read per device in this many ms, however often its connection comes back. */
  minIntervalMs: number;
}

/**
 * State reads nobody asked for: after a sync, and when a device or its command channel comes back. A flapping
 * broker connection must not turn into a flood of reads, and callers must not find the budget spent by them, so
 * they are admitted as background work (never into the share of each window kept for callers), wait behind any
 * caller's command to the same device, and a device is read at most once per `minIntervalMs`. A read that does not fit is deferred to one
 * timer and logged; until it runs the state shows as unknown and a command that needs it reads it first.
 */
export class BackgroundReads {
  private readonly lastReadAt = new Map<string, number>();
  private readonly deferred = new Set<string>();
  private timer: Timer | undefined;
  private timerAt = Infinity;
  /** Set while reads wait for the budget, so a flapping connection logs the shortage once, not per reconnect. */
  private shortOfBudget = false;
  private stopped = false;

  /** A read already queued is dropped once the service stopped. */
  private readonly wanted = (): boolean => !this.stopped;

  constructor(private readonly deps: BackgroundReadsDeps) {}

  /** Reads the given devices now if they need it and it fits; defers the rest. Never throws. */
  request(uuids: Iterable<string>): void {
    if (this.stopped) return;
    const { budget, clock, minIntervalMs } = this.deps;
    const overBudget = new Set<string>();
    for (const uuid of uuids) {
      if (!this.deps.needsRead(uuid)) {
        this.deferred.delete(uuid);
        continue;
      }
      const now = clock.now();
      const dueAt = (this.lastReadAt.get(uuid) ?? -Infinity) + minIntervalMs;
      if (dueAt > now) {
        this.defer(uuid, dueAt);
        continue;
      }
      // A device on the LAN is read without cloud room.
      const admission = this.deps.routes.tryAdmit(uuid, 1, 'background');
      if (!admission) {
        overBudget.add(uuid);
        this.defer(uuid, now + budget.msUntilAvailable('background'));
        continue;
      }
      this.deferred.delete(uuid);
      this.shortOfBudget = false;
      this.lastReadAt.set(uuid, now);
      void this.deps.read(uuid, admission, this.wanted).catch((err: unknown) =>
        // Only our own error text: a wrapped library error may carry request details.
        this.deps.logger.warn({ uuid, error: (err as Error).message }, 'could not read device state'),
      );
    }
    if (overBudget.size > 0 && !this.shortOfBudget) {
      this.shortOfBudget = true;
      const retryInMs = Number.isFinite(this.timerAt) ? Math.max(0, this.timerAt - clock.now()) : null;
      this.deps.logger.info(
        { devices: [...overBudget], retryInMs, budget: budget.status() },
        'background state reads deferred: the last share of the message budget is kept for callers',
      );
    }
  }

  /** Forgets read times older than the interval (devices come and go); called after each sync. */
  prune(): void {
    const cutoff = this.deps.clock.now() - this.deps.minIntervalMs;
    for (const [uuid, at] of this.lastReadAt) if (at <= cutoff) this.lastReadAt.delete(uuid);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.deferred.clear();
  }

  private defer(uuid: string, at: number): void {
    this.deferred.add(uuid);
    // Infinity: the budget is too small to leave anything to background reads (a limit of 1); states then stay
    // unknown until a command that needs them reads them first.
    if (!Number.isFinite(at) || at >= this.timerAt) return;
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = this.deps.clock.setTimer(() => this.retryDeferred(), Math.max(0, at - this.deps.clock.now()));
  }

  private retryDeferred(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    this.request([...this.deferred]);
  }
}
