import { AppError, isoNow, setRepeatingTimer, SingleFlight, type Clock, type Logger, type Timer } from '@homeops/common/core';
import { callCloud } from './cloud-call.js';
import type { CloudDevice, DeviceCloud } from './device-cloud.js';
import type { DeviceEvent } from './device-events.js';
import type { DeviceRegistry, SyncResult } from './device-registry.js';
import type { MessageBudget, Priority, Reservation } from './message-budget.js';

/** The last synchronization, as /health shows it. */
export interface SyncStatus {
  /** When the last sync finished (ISO time), or null before the first one. */
  lastAt: string | null;
  ok: boolean | null;
  error: string | null;
  lastSuccessAt: string | null;
  lastResult: SyncResult | null;
  intervalSeconds: number;
  /**
   * Where the known device list came from: the cloud, or the list kept from an earlier run while the cloud could not
   * be reached since the start (devices are then reached over the LAN); null before either.
   */
  source: 'cloud' | 'stored' | null;
}

interface DeviceSyncDeps {
  cloud: DeviceCloud;
  registry: DeviceRegistry;
  budget: MessageBudget;
  clock: Clock;
  logger: Logger;
  intervalSeconds: number;
  /** Least time between two syncs asked for through the API (0: none). */
  minGapSeconds: number;
  timeoutMs: number;
  publish: (event: DeviceEvent) => void;
  afterSync: () => void;
}

/** Keeps the known devices equal to the account's: at startup, periodically, on demand, and when the session comes up. */
export class DeviceSync {
  private readonly running = new SingleFlight<SyncResult>();
  private timer: Timer | undefined;
  private state: SyncStatus;
  /** When the API may ask for the next sync (clock time); set by the last requested sync that succeeded. */
  private nextRequestAt = -Infinity;

  constructor(private readonly deps: DeviceSyncDeps) {
    this.state = {
      lastAt: null,
      ok: null,
      error: null,
      lastSuccessAt: null,
      lastResult: null,
      intervalSeconds: deps.intervalSeconds,
      source: null,
    };
  }

  status(): SyncStatus {
    return { ...this.state };
  }

  /**
   * The first sync (a failure is logged, not thrown: the session may still be connecting), then the periodic one,
   * which is background work: it skips its turn rather than spend the share of the budget kept for callers.
   */
  async start(): Promise<void> {
    await this.runLogged('startup', 'caller');
    if (this.deps.intervalSeconds > 0 && !this.timer) {
      this.timer = setRepeatingTimer(this.deps.clock, () => void this.runLogged('periodic', 'background'), this.deps.intervalSeconds * 1000);
    }
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** The cloud session (re)connected: catch up if the last sync did not succeed. */
  onSessionUp(): void {
    // A sync in flight may be failing because the session was down: look again once it settled.
    const settled = this.running.current?.then(
      () => undefined,
      () => undefined,
    );
    void (settled ?? Promise.resolve()).then(() => {
      if (this.state.ok === false) return this.runLogged('session up', 'caller');
    });
  }

  /** One synchronization for a caller; concurrent callers share it. A failure leaves the known devices untouched. */
  run(): Promise<SyncResult> {
    return this.running.current ?? this.begin(this.deps.budget.assertReserve('caller'));
  }

  /**
   * A sync asked for through the API: joins one in flight, else runs unless the last requested one succeeded less than
   * the minimum gap ago (SYNC_TOO_SOON with the wait). A failed one leaves no gap: retrying it is what the caller wants,
   * and each try still needs room in the message budget.
   */
  request(): Promise<SyncResult> {
    if (this.running.current) return this.running.current;
    const waitMs = this.nextRequestAt - this.deps.clock.now();
    if (waitMs > 0) {
      throw new AppError('SYNC_TOO_SOON', `The device list was synchronized moments ago; the next sync may run in ${Math.ceil(waitMs / 1000)} s`, {
        retryAfterSeconds: Math.ceil(waitMs / 1000),
      });
    }
    return this.run().then((result) => {
      this.nextRequestAt = this.deps.clock.now() + this.deps.minGapSeconds * 1000;
      return result;
    });
  }

  /** The same for background work: undefined (skipped) when the budget has no room outside the callers' share. */
  private runInBackground(): Promise<SyncResult | undefined> {
    if (this.running.current) return this.running.current;
    const reservation = this.deps.budget.tryReserve('background');
    return reservation ? this.begin(reservation) : Promise.resolve(undefined);
  }

  private begin(reservation: Reservation): Promise<SyncResult> {
    return this.running.run(() =>
      this.synchronize()
        .finally(() => this.deps.budget.release(reservation))
        .then((result) => {
          // After the release: the reads it starts must find the room the finished sync no longer needs.
          this.deps.afterSync();
          return result;
        }),
    );
  }

  private async runLogged(reason: string, priority: Priority): Promise<void> {
    try {
      const result = await (priority === 'caller' ? this.run() : this.runInBackground());
      if (result) this.deps.logger.info({ reason, ...result }, 'devices synchronized');
      else this.deps.logger.info({ reason, budget: this.deps.budget.status() }, 'device sync skipped: the rest of the message budget is kept for callers');
    } catch (err) {
      this.deps.logger.warn({ reason, error: (err as Error).message }, 'device sync failed; keeping the known devices');
    }
  }

  /** No list yet and the cloud cannot give one: the list of an earlier run, if the backend kept one. */
  private async loadStored(at: string): Promise<void> {
    if (this.state.source !== null || !this.deps.cloud.storedDevices) return;
    const stored = await this.deps.cloud.storedDevices().catch(() => null);
    if (!stored || this.state.source !== null) return;
    const result = this.deps.registry.reconcile(stored, at);
    this.state = { ...this.state, source: 'stored' };
    this.deps.logger.info({ devices: result.total }, 'the cloud cannot be reached: using the device list kept from the last run');
  }

  private async synchronize(): Promise<SyncResult> {
    const { cloud, clock } = this.deps;
    let devices: CloudDevice[];
    try {
      devices = await callCloud(() => cloud.listDevices(), {
        what: 'the device list',
        timeoutMs: this.deps.timeoutMs,
        status: () => cloud.status(),
        clock,
      });
    } catch (err) {
      const at = isoNow(clock);
      const error = (err as Error).message;
      this.state = { ...this.state, lastAt: at, ok: false, error };
      await this.loadStored(at);
      this.deps.publish({ type: 'sync', ok: false, at, error });
      throw err;
    }
    const at = isoNow(clock);
    const result = this.deps.registry.reconcile(devices, at);
    this.state = { ...this.state, lastAt: at, ok: true, error: null, lastSuccessAt: at, lastResult: result, source: 'cloud' };
    this.deps.publish({ type: 'sync', ok: true, at, result });
    return result;
  }
}
