import { isoNow, type Clock } from '@homeops/common/core';
import { callCloud } from './cloud-call.js';
import type { Capability, DeviceCloud } from './device-cloud.js';
import type { DeviceEvent } from './device-events.js';
import type { DomainFamily } from './device-family.js';
import type { DeviceQueue } from './device-queue.js';
import type { DeviceRegistry } from './device-registry.js';
import type { LanOrCloud } from './lan-or-cloud.js';
import { assertCapable, assertKnownDevice, assertReachable } from './device-rules.js';
import type { Device } from './device.js';
import type { MessageBudget } from './message-budget.js';

/** A reading with when it was taken and how old it is now. */
export interface Aged<T> {
  reading: T;
  at: string;
  ageSeconds: number;
}

/** A cached reading and when it was taken (ms). */
export interface Cached<T> {
  reading: T;
  at: number;
}

/** What the actions of a device family need. */
export interface DeviceActionsDeps {
  cloud: DeviceCloud;
  registry: DeviceRegistry;
  queue: DeviceQueue;
  budget: MessageBudget;
  /** Chooses between the LAN and the cloud budget for each piece of work. */
  routes: LanOrCloud;
  clock: Clock;
  commandTimeoutMs: number;
  publish: (event: DeviceEvent) => void;
  /** The registered device families, in their order: what another family says a device is, and what it takes. */
  families: readonly DomainFamily[];
}

/**
 * The path every family's command takes: capability and presence checks, the account budget, the device's queue.
 * A family's call also reserves the abilities read (one message) the backend sends before a device's first family
 * call: only the backend knows which call is the first, and room reserved but not used is free again when the call
 * ends.
 */
export abstract class DeviceActions {
  constructor(protected readonly deps: DeviceActionsDeps) {}

  /**
   * Admits `count` cloud messages for a caller (none while the device is on the LAN) and runs the work in the
   * device's queue, checking the device again there; a failed LAN call is retried once through the cloud.
   */
  protected admitted<T>(uuid: string, count: number, work: (device: Device) => Promise<T>): Promise<T> {
    assertReachable(this.deviceWith(uuid));
    const admission = this.deps.routes.admit(uuid, count);
    return this.deps.queue.run(uuid, () =>
      this.deps.routes.run(admission, uuid, async () => {
        const device = this.deviceWith(uuid);
        assertReachable(device);
        return await work(device);
      }),
    );
  }

  /** The known device with this family's capability, or DEVICE_NOT_FOUND / DEVICE_NOT_CONTROLLABLE. */
  protected deviceWith(uuid: string): Device {
    const device = assertKnownDevice(this.deps.registry.get(uuid), uuid);
    assertCapable(device, this.capability, this.actionText);
    return device;
  }

  protected call<T>(what: string, work: () => Promise<T>): Promise<T> {
    const { cloud, clock, commandTimeoutMs } = this.deps;
    return callCloud(work, { what, timeoutMs: commandTimeoutMs, status: () => cloud.status(), clock });
  }

  /** The cached reading with its age, while younger than `maxAgeMs`. */
  protected fresh<T>(entry: Cached<T> | undefined, maxAgeMs: number): Aged<T> | undefined {
    return entry && this.deps.clock.now() - entry.at < maxAgeMs ? this.aged(entry) : undefined;
  }

  protected aged<T>(entry: Cached<T>): Aged<T> {
    return { reading: entry.reading, at: new Date(entry.at).toISOString(), ageSeconds: Math.floor((this.deps.clock.now() - entry.at) / 1000) };
  }

  protected nowIso(): string {
    return isoNow(this.deps.clock);
  }

  protected abstract readonly capability: Capability;
  /** What the family's commands do, for the refusal of a device without the capability. */
  protected abstract readonly actionText: string;
}

/** The channels a family acts on: a device's channels without the "all" channel 0 of a multi-channel one. */
export function actionChannels(device: Device): number[] {
  const channels = device.channels.map((c) => c.channel);
  return channels.length > 1 ? channels.filter((c) => c !== 0) : channels;
}
