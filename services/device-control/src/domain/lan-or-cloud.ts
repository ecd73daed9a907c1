import { LanCallFailed, type DeviceCloud, type DeviceTransport } from './device-cloud.js';
import type { DeviceRegistry } from './device-registry.js';
import type { MessageBudget, Priority, Reservation } from './message-budget.js';

/** Room admitted for one piece of device work: none while the device is reached over the LAN. */
export interface Admission {
  readonly priority: Priority;
  /** Cloud messages the work may send. */
  readonly count: number;
  reservation: Reservation | undefined;
}

interface LanOrCloudDeps {
  cloud: DeviceCloud;
  registry: DeviceRegistry;
  budget: MessageBudget;
}

/**
 * Where the transport meets the budget. Work for a device the backend reaches over the LAN is admitted without
 * cloud room (a LAN message never counts); work that goes through the cloud holds `count` messages of the budget, as
 * before. When a LAN call fails and the backend moves the device to the cloud, the work runs once more there,
 * admitted then, after one read through the cloud that learns whether the device's address changed.
 */
export class LanOrCloud {
  constructor(private readonly deps: LanOrCloudDeps) {}

  /** How the next message to the device travels (`unreachable` for an unknown one). */
  transportOf(uuid: string): DeviceTransport {
    return this.deps.registry.linkOf(uuid)?.transport ?? 'unreachable';
  }

  /**
   * The messages the backend sends before the device's next family call: its abilities read (1) until it knows them.
   * Counted at admission whatever the transport, so a LAN call retried through the cloud has room for it too.
   */
  abilitiesReadBefore(uuid: string): number {
    return this.deps.cloud.abilitiesKnown(uuid) ? 0 : 1;
  }

  /** Admits work for the device, or throws COMMAND_BUDGET_EXHAUSTED when it goes through the cloud and does not fit. */
  admit(uuid: string, count: number, priority: Priority = 'caller'): Admission {
    const reservation = this.transportOf(uuid) === 'lan' ? undefined : this.deps.budget.assertReserve(priority, count);
    return { priority, count, reservation };
  }

  /** The same without throwing: undefined when the work would go through the cloud and does not fit. */
  tryAdmit(uuid: string, count: number, priority: Priority): Admission | undefined {
    if (this.transportOf(uuid) === 'lan') return { priority, count, reservation: undefined };
    const reservation = this.deps.budget.tryReserve(priority, count);
    return reservation ? { priority, count, reservation } : undefined;
  }

  /**
   * Runs admitted work (in the device's queue) and releases its room after. A device that moved to the cloud while
   * the work waited is admitted now; a LAN call that failed is retried once through the cloud, within the budget.
   */
  async run<T>(admission: Admission, uuid: string, work: () => Promise<T>): Promise<T> {
    try {
      if (!admission.reservation && this.transportOf(uuid) !== 'lan') admission.reservation = this.reserve(admission, 0);
      try {
        return await work();
      } catch (err) {
        if (!(err instanceof LanCallFailed) || this.transportOf(uuid) !== 'cloud') throw err;
        const relearn = this.deps.cloud.refresh !== undefined && this.deps.registry.linkOf(uuid)?.addressSource === 'learned';
        admission.reservation ??= this.reserve(admission, relearn ? 1 : 0);
        // A moved device (DHCP) answers System.All through the cloud with its new address: the retry may take the LAN again.
        if (relearn) await this.deps.cloud.refresh?.(uuid, false).catch(() => undefined);
        return await work();
      }
    } finally {
      if (admission.reservation) this.deps.budget.release(admission.reservation);
    }
  }

  private reserve(admission: Admission, extra: number): Reservation {
    return this.deps.budget.assertReserve(admission.priority, admission.count + extra);
  }
}
