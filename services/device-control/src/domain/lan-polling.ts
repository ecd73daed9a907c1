import { setRepeatingTimer, type Clock, type Logger, type Timer } from '@homeops/common/core';
import type { DeviceCloud } from './device-cloud.js';
import type { DeviceQueue } from './device-queue.js';
import type { DeviceRegistry } from './device-registry.js';
import type { Device } from './device.js';

interface LanPollingDeps {
  cloud: DeviceCloud;
  registry: DeviceRegistry;
  queue: DeviceQueue;
  clock: Clock;
  logger: Logger;
  /** 0 turns polling off. */
  intervalMs: number;
}

/**
 * State without pushes: a device whose pushes do not reach the service (the cloud session is down, locked out or
 * waits for an MFA code, or its broker connection is lost) and whose LAN address is known is read over the LAN every
 * `intervalMs`, in its queue behind callers' commands. Never a cloud message; what it reads arrives as events.
 */
export class LanPolling {
  private timer: Timer | undefined;
  private readonly inFlight = new Set<string>();
  private readonly lastPolledAt = new Map<string, number>();
  /** Devices whose last poll failed: logged once per failure streak, not every interval. */
  private readonly failing = new Set<string>();

  constructor(private readonly deps: LanPollingDeps) {}

  /** Whether the backend can poll at all (it has a LAN transport) and polling is on. */
  get enabled(): boolean {
    return this.deps.cloud.refresh !== undefined && this.deps.intervalMs > 0;
  }

  start(): void {
    if (!this.enabled || this.timer) return;
    this.timer = setRepeatingTimer(this.deps.clock, () => this.request(this.deps.registry.list().map((d) => d.uuid)), this.deps.intervalMs);
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Polls those of the devices that need it now, at most once per half interval each (a flapping broker polls once). */
  request(uuids: Iterable<string>): void {
    if (!this.enabled || !this.timer) return;
    const now = this.deps.clock.now();
    for (const uuid of uuids) {
      const device = this.deps.registry.get(uuid);
      if (!device || !needsPoll(device) || this.inFlight.has(uuid)) continue;
      if (now - (this.lastPolledAt.get(uuid) ?? -Infinity) < this.deps.intervalMs / 2) continue;
      this.lastPolledAt.set(uuid, now);
      this.poll(uuid);
    }
  }

  /** A device left the account. */
  forget(uuid: string): void {
    this.lastPolledAt.delete(uuid);
    this.failing.delete(uuid);
  }

  private poll(uuid: string): void {
    const { cloud, queue, logger } = this.deps;
    this.inFlight.add(uuid);
    void queue
      .run(uuid, () => cloud.refresh!(uuid, true), 'background')
      .then(
        () => {
          if (this.failing.delete(uuid)) logger.info({ uuid }, 'device answers the LAN poll again');
        },
        (err: unknown) => {
          if (this.failing.has(uuid)) return;
          this.failing.add(uuid);
          logger.warn({ uuid, error: (err as Error).message }, 'LAN poll failed; trying again every interval');
        },
      )
      .finally(() => this.inFlight.delete(uuid));
  }
}

/** No pushes arrive from the device and the LAN knows where it is. */
function needsPoll(device: Device): boolean {
  return !device.link.pushes && device.link.address !== null && device.presence !== 'upgrading';
}
