import type { Clock, Logger, Timer } from '@homeops/common/core';
import type { DeviceCloud } from './device-cloud.js';
import type { DeviceQueue } from './device-queue.js';
import type { DeviceRegistry } from './device-registry.js';
import type { LanOrCloud } from './lan-or-cloud.js';
import type { MessageBudget } from './message-budget.js';

interface LanDiscoveryDeps {
  cloud: DeviceCloud;
  registry: DeviceRegistry;
  queue: DeviceQueue;
  routes: LanOrCloud;
  budget: MessageBudget;
  clock: Clock;
  logger: Logger;
}

/** A device whose address is still unknown is asked again after this long (it may have had no address then). */
const RETRY_MS = 6 * 3_600_000;

/**
 * Finds LAN addresses: a device the backend could reach over the LAN but whose address is unknown is read once
 * through the cloud (Appliance.System.All tells the address), as background work inside the budget, behind callers'
 * commands. The backend keeps what it learns across restarts, so this costs one message per device, once.
 */
export class LanDiscovery {
  private readonly askedAt = new Map<string, number>();
  /** Devices that waited for room in the budget's background share, asked again by one timer. */
  private readonly deferred = new Set<string>();
  private timer: Timer | undefined;
  private stopped = false;

  constructor(private readonly deps: LanDiscoveryDeps) {}

  /** Reads the given devices that need it and fit the budget's background share; the others wait for the next call. */
  request(uuids: Iterable<string>): void {
    const { cloud, routes, queue, clock } = this.deps;
    if (this.stopped || !cloud.lanControl || !cloud.refresh) return;
    for (const uuid of uuids) {
      if (!this.needsAddress(uuid)) continue;
      if (clock.now() - (this.askedAt.get(uuid) ?? -Infinity) < RETRY_MS) continue;
      const admission = routes.tryAdmit(uuid, 1, 'background');
      if (!admission) {
        this.defer(uuid);
        continue;
      }
      this.deferred.delete(uuid);
      this.askedAt.set(uuid, clock.now());
      void queue
        .run(
          uuid,
          () => routes.run(admission, uuid, async () => (!this.stopped && this.needsAddress(uuid) ? cloud.refresh!(uuid, false) : undefined)),
          'background',
        )
        .catch((err: unknown) => this.deps.logger.info({ uuid, error: (err as Error).message }, 'could not read the LAN address of a device'));
    }
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.deferred.clear();
  }

  private defer(uuid: string): void {
    this.deferred.add(uuid);
    const wait = this.deps.budget.msUntilAvailable('background');
    // Infinity: the budget leaves background work nothing; the next sync or reconnect asks again.
    if (this.timer || !Number.isFinite(wait)) return;
    this.timer = this.deps.clock.setTimer(
      () => {
        this.timer = undefined;
        this.request([...this.deferred]);
      },
      Math.max(1_000, wait),
    );
  }

  /** Online, reached through the cloud, no address known. */
  private needsAddress(uuid: string): boolean {
    const device = this.deps.registry.get(uuid);
    return device !== undefined && device.presence === 'online' && device.link.transport === 'cloud' && device.link.address === null;
  }
}
